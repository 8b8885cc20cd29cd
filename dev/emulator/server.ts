/*
 * The Insight Service emulator: an HTTP server answering the REST interface of
 * ../shared/spec/insight-service-interface.md from an in-memory store, with fault injection,
 * a request log and the webhook sender. Transport only: the endpoints are in api.ts, the
 * control routes in control.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger, type Logger } from "../../src/log.js";
import { errorResponse, handleApi, type ApiContext, type ApiResponse } from "./api.js";
import { handleControl } from "./control.js";
import { messageEvent, threadEvent } from "./events.js";
import { FaultInjector } from "./faults.js";
import { defaultKeys, KeyRing } from "./keys.js";
import { RequestLog } from "./request-log.js";
import { seedStore } from "./seed.js";
import { SEED } from "./seed-content.js";
import { EmulatorStore, UnknownResourceError } from "./store.js";
import type { RecordedRequest } from "./types.js";
import { WebhookSender } from "./webhook-sender.js";
import type { Emulator } from "./emulator.js";

export type { Emulator };

export { SEED };

export interface EmulatorOptions {
  /** Default 0 (a random free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Deterministic data; default 42. */
  seed?: number;
  /** Clock for `range` filtering and generated timestamps; default `() => new Date()`. */
  now?: () => Date;
  /** Name of the search text query parameter; default "query". */
  searchParam?: string;
  /** Load the realistic seed data; default true. */
  seeded?: boolean;
  /** Webhook answer time-out (spec 6.5); default 10,000 ms. */
  webhookTimeoutMs?: number;
  logger?: Logger;
  /** Override the generated full-access key. */
  apiKey?: string;
  /** Override the generated key that may read only SEED.communities.primary. */
  limitedKey?: string;
}

const API_PATH = /^\/api(?:\/(v\d+))?(?=\/|$)(.*)$/;
const CURRENT_VERSION = "v1";
const MAX_CONTROL_BODY = 256 * 1024;

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const now = opts.now ?? (() => new Date());
  const seed = opts.seed ?? 42;
  const logger = opts.logger ?? silentLogger;
  const store = new EmulatorStore({ seed, now });
  if (opts.seeded !== false) seedStore(store, seed, now());

  const generated = defaultKeys(seed);
  const apiKey = opts.apiKey ?? generated.apiKey;
  const limitedKey = opts.limitedKey ?? generated.limitedKey;
  const keys = new KeyRing();
  keys.grant(apiKey, "all", "full");
  keys.grant(limitedKey, [SEED.communities.primary], "limited");

  const faults = new FaultInjector();
  const requests = new RequestLog();
  const webhooks = new WebhookSender({ timeoutMs: opts.webhookTimeoutMs ?? 10_000, logger, now });
  const ctx: ApiContext = { store, now, searchParam: opts.searchParam ?? "query" };

  const pendingDelays = new Set<() => void>();
  let closed = false;
  /** Resolves true after `ms`, or false at once when the emulator closes meanwhile. */
  const delay = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const finish = (done: boolean) => {
        clearTimeout(timer);
        pendingDelays.delete(cancel);
        resolve(done);
      };
      const cancel = () => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      pendingDelays.add(cancel);
    });

  const emulator: Emulator = {
    baseUrl: "",
    apiKey,
    limitedKey,
    store,
    faults,
    requests,
    webhooks,
    grantKey: (key, communities) => keys.grant(key, communities),
    revokeKey: (key) => keys.revoke(key),
    async enrichThread(groupId, threadId, changes, action = "updated") {
      const thread = store.updateThread(groupId, threadId, changes);
      return webhooks.send(threadEvent(action, requireGroup(groupId), thread, now()));
    },
    async createThread(groupId, partial = {}) {
      const thread = store.addThread(groupId, partial);
      const deliveries = await webhooks.send(threadEvent("created", requireGroup(groupId), thread, now()));
      return { thread, deliveries };
    },
    async postMessage(groupId, threadId, partial = {}) {
      const message = store.addMessage(groupId, threadId, partial);
      const deliveries = await webhooks.send(messageEvent("created", requireGroup(groupId), message, now()));
      return { message, deliveries };
    },
    async close() {
      closed = true;
      for (const cancel of [...pendingDelays]) cancel();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await webhooks.close();
    },
  };

  function requireGroup(groupId: string) {
    const g = store.group(groupId);
    if (!g) throw new UnknownResourceError(`unknown chat group ${groupId}`);
    return g;
  }

  function send(res: ServerResponse, r: ApiResponse, rec?: RecordedRequest): void {
    const text = JSON.stringify(r.body);
    if (rec) rec.status = r.status;
    if (res.destroyed) return;
    res.writeHead(r.status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
      ...r.headers,
    });
    res.end(text);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const match = API_PATH.exec(path);
    const version = match?.[1] ?? null;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
    const header = req.headers["x-api-key"];
    const presented = Array.isArray(header) ? header[0] : header;
    const key = keys.lookup(presented);
    const rec = requests.start({
      method: req.method ?? "GET",
      path,
      version,
      query,
      at: now(),
      key: key ? key.kind : presented ? "unknown" : "none",
    });

    const decision = faults.decide(path);
    if (decision.latencyMs > 0 && !(await delay(decision.latencyMs))) return;
    switch (decision.action.kind) {
      case "down":
        req.socket.destroy();
        return;
      case "hang":
        return; // closeAllConnections() ends it when the emulator closes
      case "rateLimit":
        return send(
          res,
          errorResponse(429, "rate limit exceeded (emulated)", {
            "retry-after": String(decision.action.retryAfterSeconds),
          }),
          rec,
        );
      case "serverError":
        return send(res, errorResponse(decision.action.status, "internal error (emulated)"), rec);
      case "none":
        break;
    }

    if (!match) return send(res, errorResponse(404, "not found"), rec);
    if (version !== null && version !== CURRENT_VERSION) {
      return send(res, errorResponse(404, `unknown API version ${version}`), rec);
    }
    if (!key) {
      return send(res, errorResponse(401, presented ? "invalid API key" : "missing X-API-Key header"), rec);
    }
    if (req.method !== "GET") {
      return send(res, errorResponse(405, "method not allowed: the API is read-only", { allow: "GET" }), rec);
    }
    let segments: string[];
    try {
      segments = (match[2] ?? "").split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      return send(res, errorResponse(400, "malformed path"), rec);
    }
    send(res, handleApi(ctx, { segments, query: url.searchParams, grant: key.grant }), rec);
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let body: unknown = undefined;
    if (req.method === "POST") {
      const raw = await readBody(req, MAX_CONTROL_BODY);
      if (raw === undefined) return send(res, errorResponse(413, "body too large"));
      if (raw.trim() !== "") {
        try {
          body = JSON.parse(raw);
        } catch {
          return send(res, errorResponse(400, "body is not JSON"));
        }
      }
    }
    const segments = url.pathname.split("/").filter(Boolean).slice(1);
    send(res, await handleControl(emulator, req.method ?? "GET", segments, body));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const isControl = url.pathname === "/_emulator" || url.pathname.startsWith("/_emulator/");
    (isControl ? control(req, res, url) : api(req, res, url)).catch((e: unknown) => {
      logger.error({ err: e, path: url.pathname }, "emulator: request failed");
      if (!res.headersSent && !closed) send(res, errorResponse(500, "emulator error"));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  // A wildcard listen address is not something a client can dial: name the loopback instead.
  const wildcard = addr.address === "0.0.0.0" || addr.address === "::";
  const host = wildcard ? "127.0.0.1" : addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  emulator.baseUrl = `http://${host}:${addr.port}`;
  logger.info({ baseUrl: emulator.baseUrl, seed }, "emulator: listening");
  return emulator;
}

function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > max) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
