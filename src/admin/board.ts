import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Queue } from "bullmq";
import { basicAuth } from "./basic-auth.js";

export const ADMIN_PATH = "/admin/queues";

/** Builds bull-board's Express app for the queues; loaded only when an operator first opens it. */
async function loadBoard(queues: readonly Queue[]): Promise<express.RequestHandler> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/express"),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: "Insight Relay" } },
  });
  // The dashboard's router is typed `any` by bull-board; it is an Express app.
  return serverAdapter.getRouter() as express.RequestHandler;
}

/**
 * The BullMQ dashboard (bull-board) at /admin/queues, behind basic auth. bull-board and what it
 * pulls in (lodash, valibot, ejs: about 4 MB of heap) load on the first authorised request, not
 * at start, so a process nobody administers never holds them.
 */
export function adminRouter(queues: readonly Queue[], password: string): Router {
  let board: Promise<express.RequestHandler> | undefined;
  const router = express.Router();
  router.use(ADMIN_PATH, basicAuth(password), (req: Request, res: Response, next: NextFunction) => {
    board ??= loadBoard(queues);
    board.then(
      (handler) => handler(req, res, next),
      (err: unknown) => {
        board = undefined; // try again on the next request
        next(err);
      },
    );
  });
  return router;
}
