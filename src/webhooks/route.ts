import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { WebhookIngest } from "./unrouted.js";
import { readBodyLimited } from "./read-body.js";
import { secretMatcher } from "./secret.js";
import { WrongSecretLimiter } from "./wrong-secret-limiter.js";

export const WEBHOOK_PATH = "/webhooks/insight/:secret";
/** Real deliveries are a few KiB; anything near this is not one of them. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** How long an address over its wrong-secret limit waits for its 404, and how many may wait. */
const LIMITED_DELAY_MS = 1_000;
const MAX_WAITING = 1_000;

// Case-insensitive like Express's routing; one path segment after the prefix.
const ROUTE = /^\/webhooks\/insight\/([^/?#]*)\/?(?:\?.*)?$/i;
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const RECORDED = JSON.stringify({ ok: true, outcome: "recorded" });
const SPOOLED = JSON.stringify({ ok: true, outcome: "spooled" });

/** A request handler that answers the Insight webhook route and declines everything else. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The Insight webhook route, on Node's own request and response, in front of Express: it is
 * the hot path, and Express's routing and middleware would cost more than the work itself
 * (as octokit/webhooks.js's node middleware does). The answer is decided by cheap checks in
 * order (secret: 404, slowly past a limit; declared size: 413), then the body is recorded
 * durably and answered 2xx, valid or not (rule 1: any non-2xx disables the webhook upstream).
 * No Slack or REST work happens before the answer.
 */
export function webhookHandler(opts: {
  secret: string;
  ingest: WebhookIngest;
  /**
   * Multi-workspace mode: the ingest of the workspace whose secret this is (undefined: none).
   * Replaces the single secret; each workspace's deliveries are recorded in its own state.
   */
  ingestFor?: (presented: string) => Promise<WebhookIngest | undefined>;
  logger: Logger;
  metrics?: Metrics;
  limiter?: WrongSecretLimiter;
}): NodeHandler {
  const limiter = opts.limiter ?? new WrongSecretLimiter();
  const matches = secretMatcher(opts.secret);

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      "content-type": body.startsWith("{") ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      ...headers,
    });
    res.end(body);
  };
  const refuse = (res: ServerResponse, status: 404 | 413) => {
    if (res.writableEnded || res.destroyed) return; // the sender went away meanwhile
    // Connection: close and a closed socket: the rest of the body is never read.
    res.once("finish", () => res.req.socket.destroy());
    send(res, status, status === 413 ? "Payload Too Large" : "Not Found", { connection: "close" });
  };
  // An address over its limit still gets 404 (never 429: the contract says 404, and a
  // different answer would tell a guesser something), a second later, on a closed connection.
  let waiting = 0;
  const slowNotFound = (res: ServerResponse) => {
    // A flood past what may wait is dropped unanswered: answering it at once would lift the limit.
    if (waiting >= MAX_WAITING) return res.req.socket.destroy();
    waiting++;
    setTimeout(() => {
      waiting--;
      refuse(res, 404);
    }, LIMITED_DELAY_MS).unref();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, presented: string, reqId: string) => {
    const ingest = opts.ingestFor
      ? await opts.ingestFor(presented)
      : matches(presented)
        ? opts.ingest
        : undefined;
    if (!ingest) {
      // Only wrong secrets count against an address: behind a proxy the real sender shares
      // its address with everyone else, and must never be refused.
      const address = req.socket.remoteAddress ?? "unknown";
      const limited = limiter.blocked(address);
      const crossed = limiter.record(address);
      opts.metrics?.wrongSecrets.inc({ limited: String(limited) });
      if (limited) return slowNotFound(res);
      opts.logger.warn({ reqId, address }, "webhook request with a wrong secret");
      if (crossed) {
        opts.logger.warn(
          { address },
          "wrong webhook secrets from this address are over the limit: answering slowly, and not logging each, until it keeps under 30 a minute",
        );
      }
      return send(res, 404, "Not Found");
    }
    if (Number(req.headers["content-length"] ?? 0) > WEBHOOK_BODY_LIMIT) return refuse(res, 413);
    let raw: Buffer | undefined;
    try {
      raw = await readBodyLimited(req, WEBHOOK_BODY_LIMIT);
    } catch {
      return; // the sender went away: nothing to answer
    }
    if (!raw) return refuse(res, 413);
    const started = process.hrtime.bigint();
    try {
      const { outcome } = await ingest.ingest(raw.toString("utf8"));
      send(res, 200, outcome === "recorded" ? RECORDED : SPOOLED);
      // Counted where it is answered: a delivery kept unrouted and routed later counts once.
      opts.metrics?.acks.inc({ outcome });
      // Accepted deliveries are counted in metrics; a line each is for debugging only.
      opts.logger.debug({ reqId, outcome }, "webhook delivery");
    } catch (err) {
      opts.logger.error({ reqId, err }, "webhook delivery could not be recorded in Redis nor spooled");
      send(res, 503, JSON.stringify({ ok: false }));
    } finally {
      opts.metrics?.ackSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  };

  return (req, res) => {
    if (req.method !== "POST" || !req.url) return false;
    const m = ROUTE.exec(req.url);
    if (!m) return false;
    let presented: string;
    try {
      presented = decodeURIComponent(m[1] ?? "");
    } catch {
      presented = "";
    }
    const incoming = req.headers["x-request-id"];
    const reqId = typeof incoming === "string" && PLAIN_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", reqId);
    void handle(req, res, presented, reqId).catch((err: unknown) => {
      opts.logger.error({ reqId, err }, "webhook handler failed");
      if (!res.headersSent) send(res, 503, JSON.stringify({ ok: false }));
    });
    return true;
  };
}
