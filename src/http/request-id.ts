import { randomUUID } from "node:crypto";
import express, { type Request, type Response, type Router } from "express";
import type { Logger } from "../log.js";

export const REQUEST_ID_HEADER = "x-request-id";

// An id from a proxy in front is kept when it is a plain token; anything else is replaced.
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Probes and scrapes arrive every few seconds; their lines would drown the rest at info.
const QUIET_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** The path as logged: no query string, and the webhook secret never. */
export function loggedPath(originalUrl: string): string {
  const path = originalUrl.split("?")[0] ?? "/";
  // Case-insensitive, as Express's routing is: /Webhooks/Insight/<secret> reaches the route too.
  return path.replace(/^\/webhooks\/insight\/[^/]*/i, "/webhooks/insight/[redacted]");
}

/** What the middleware leaves on `res.locals` for handlers that want to log with the id. */
export interface RequestLocals {
  requestId: string;
  log: Logger;
}

/**
 * Gives every request an id (the caller's X-Request-Id when it is a plain token, else a new
 * UUID), echoes it in the answer, puts `requestId` and a child logger on `res.locals`, and
 * writes one JSON line per finished request. Mount it before every other route.
 */
export function requestIdRouter(logger: Logger, newId: () => string = randomUUID): Router {
  const router = express.Router();
  router.use((req: Request, res: Response, next) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const id = typeof incoming === "string" && ACCEPTED_ID.test(incoming) ? incoming : newId();
    // The child logger is made on first use only: most requests (webhook deliveries) never
    // log inside their handler, and a pino child per request costs more than the route.
    let child: Logger | undefined;
    const log = () => (child ??= logger.child({ reqId: id }));
    res.locals.requestId = id;
    Object.defineProperty(res.locals, "log", { get: log, enumerable: true, configurable: true });
    res.setHeader("X-Request-Id", id);
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const path = loggedPath(req.originalUrl);
      const line = {
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      };
      if (QUIET_PATHS.has(path)) logger.debug({ reqId: id, ...line }, "request");
      else logger.info({ reqId: id, ...line }, "request");
    });
    next();
  });
  return router;
}
