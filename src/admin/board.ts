import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { Queue } from "bullmq";
import express, { type Router } from "express";
import { QUEUE_NAMES } from "../jobs/queues.js";
import type { AppServices } from "../runtime.js";
import { basicAuth } from "./basic-auth.js";

export const ADMIN_PATH = "/admin/queues";

/**
 * Every queue of the app: the producers the services hold, plus a read-only handle on each
 * named queue no producer of this process holds (a feature's own queue), so the page lists
 * them all whichever modules this process runs.
 */
export function adminQueues(services: AppServices): Queue[] {
  const held = Object.values(services.queues).filter((q): q is Queue => q instanceof Queue);
  const names = new Set(held.map((q) => q.name));
  const extra = Object.values(QUEUE_NAMES)
    .filter((name) => !names.has(name))
    .map((name) => new Queue(name, { connection: services.redis, prefix: services.config.redis.prefix }));
  for (const q of extra) q.on("error", () => undefined); // the shared connection logs its own errors
  return [...held, ...extra];
}

/** The BullMQ dashboard (bull-board) at /admin/queues, behind basic auth. */
export function adminRouter(services: AppServices, password: string): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({
    queues: adminQueues(services).map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: "Insight Relay" } },
  });
  const router = express.Router();
  // The dashboard's router is typed `any` by bull-board; it is an Express app.
  const board = serverAdapter.getRouter() as express.RequestHandler;
  router.use(ADMIN_PATH, basicAuth(password), board);
  return router;
}
