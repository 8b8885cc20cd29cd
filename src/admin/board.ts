import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import express, { type Router } from "express";
import type { Queue } from "bullmq";
import { basicAuth } from "./basic-auth.js";

export const ADMIN_PATH = "/admin/queues";

/** The BullMQ dashboard (bull-board) at /admin/queues, behind basic auth. */
export function adminRouter(queues: readonly Queue[], password: string): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: "Insight Relay" } },
  });
  const router = express.Router();
  // The dashboard's router is typed `any` by bull-board; it is an Express app.
  const board = serverAdapter.getRouter() as express.RequestHandler;
  router.use(ADMIN_PATH, basicAuth(password), board);
  return router;
}
