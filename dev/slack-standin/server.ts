import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger, type Logger } from "../../src/log.js";
import { flattenBlocks } from "./flatten-blocks.js";
import { answerAuthorize } from "./authorize-page.js";
import { createOAuthRegistry, type OAuthRegistry } from "./oauth.js";
import {
  isKnownMethod,
  reactionKey,
  STANDIN_TEAM,
  runMethod,
  type MethodContext,
  type MethodResult,
  type Obj,
  type StandInEvent,
  type StandInState,
} from "./methods.js";
import type { StandInWorkspace } from "./oauth.js";
import type { FailureRule, RecordedCall, RecordedResponse, StoredMessage, UploadedFile } from "./types.js";

export type { RecordedCall, RecordedResponse, StoredMessage, UploadedFile, MessageVersion } from "./types.js";
export { STANDIN_BOT, STANDIN_TEAM, STANDIN_METHODS, dmChannelOf } from "./methods.js";
export type { StandInWorkspace, OAuthRegistry } from "./oauth.js";

export interface SlackStandInOptions {
  port?: number;
  /** Print each post/update as one readable line (for the demo). */
  print?: boolean;
  /** Append each post's Block Kit JSON to this file, one JSON object a line. */
  blocksFile?: string;
  logger?: Logger;
  /** The one accepted token; default: any `xoxb-` token. */
  botToken?: string;
  /** Where printed lines go (default stdout). */
  out?: (line: string) => void;
  /** Clock for message timestamps (ms since epoch). */
  now?: () => number;
  /** The app's client id and secret that oauth.v2.access accepts; default: any. */
  oauthClient?: { id: string; secret: string };
  /** Workspaces the authorize page knows (`GET /oauth/v2/authorize?team=<id>` installs one). */
  workspaces?: StandInWorkspace[];
}

export interface SlackStandIn {
  /** Web API base, e.g. "http://127.0.0.1:PORT/api/" (what SLACK_API_URL is set to). */
  url: string;
  /** Every call, failed ones included, oldest first. */
  calls: RecordedCall[];
  /** Current messages (deleted ones left out), oldest first, optionally of one channel. */
  messages(channel?: string): StoredMessage[];
  /** Successful calls of one method (default chat.postMessage). */
  posts(method?: string): RecordedCall[];
  /** Successful chat.postEphemeral calls. */
  ephemerals(): RecordedCall[];
  /** POSTs received at response URLs. */
  responses: RecordedResponse[];
  /** A URL on this server that records what is POSTed to it (use as Slack's response_url). */
  responseUrl(id?: string): string;
  views: { opened: RecordedCall[]; published: Map<string, unknown> };
  files: UploadedFile[];
  /**
   * Injected failures, matched in the order given. `method` is a Web API method, "*" for any,
   * "upload" for upload URLs or "response_url" for response URLs.
   */
  fail: {
    /**
     * HTTP 429 with Retry-After and body {ok:false,error:"ratelimited"}; only for that workspace's
     * token when `team` is given. `every`: only 1 in `every` of the calls (a share), `count` times.
     */
    rateLimit(
      method: string,
      o: { count: number; retryAfterSeconds: number; team?: string; every?: number },
    ): void;
    /** HTTP 200 {ok:false,error:code}; only for that channel when given; `count` default: until cleared. */
    error(method: string, code: string, o?: { channel?: string; count?: number }): void;
    /** HTTP `status` (default 500); `every`: only 1 in `every` of the calls (a share), `count` times. */
    serverError(method: string, o: { count: number; status?: number; every?: number }): void;
    /** Never answers (until the client gives up, `dropHung` or the stand-in closes). */
    hang(method: string, o: { count: number }): void;
    /** Drops the connection of every call left hanging: the client sees a network error. */
    dropHung(): void;
    clear(): void;
  };
  /** Polls `probe` until it returns something other than undefined/false. */
  waitFor<T>(probe: () => T | undefined | false, o?: { timeoutMs?: number; intervalMs?: number }): Promise<T>;
  /** Many workspaces: grants (codes), per-workspace tokens, admins, revoked tokens. */
  oauth: OAuthRegistry;
  /** users.info's `tz` per user id ("UTC" for anyone not in it); cleared by reset(). */
  timeZones: Map<string, string>;
  /**
   * A person adds (or removes) a reaction on a message, as reactions.get then reports it. Slack
   * also sends the app a `reaction_added` / `reaction_removed` event: tests send that themselves.
   */
  react(a: { channel: string; ts: string; user: string; name: string; removed?: boolean }): void;
  /** A person's Slack time zone, as users.info reports it (`tz`, `tz_offset`); default UTC. */
  setTimeZone(user: string, timeZone: string): void;
  /** Forgets every call, message, view, file, response, time zone and injected failure. */
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 50 * 1024 * 1024;
// Fields Slack accepts as JSON strings in form bodies; decoded so tests see one shape.
const JSON_FIELDS = ["blocks", "attachments", "view", "files", "metadata", "prompts"];

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function multipart(contentType: string, body: Buffer): Promise<FormData> {
  return new Request("http://standin.local/", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  }).formData();
}

type ParsedArgs = { ok: true; args: Obj } | { ok: false; error: string };

async function parseArgs(req: IncomingMessage, body: Buffer, query: URLSearchParams): Promise<ParsedArgs> {
  const args: Obj = Object.fromEntries(query);
  const ct = (req.headers["content-type"] ?? "").toLowerCase();
  if (body.length > 0) {
    if (ct.startsWith("application/json")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return { ok: false, error: "invalid_json" };
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return { ok: false, error: "json_not_object" };
      }
      Object.assign(args, parsed);
    } else if (ct.startsWith("multipart/form-data")) {
      for (const [k, v] of await multipart(ct, body)) if (typeof v === "string") args[k] = v;
    } else {
      Object.assign(args, Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
    }
  }
  for (const f of JSON_FIELDS) {
    const v = args[f];
    if (typeof v === "string" && v !== "") {
      try {
        args[f] = JSON.parse(v);
      } catch {
        // left as text: the method answers with its own format error
      }
    }
  }
  return { ok: true, args };
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

function basicAuth(req: IncomingMessage): { id: string; secret: string } | undefined {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^Basic\s+(\S+)$/i.exec(h) : null;
  if (!m?.[1]) return undefined;
  const [id = "", ...rest] = Buffer.from(m[1], "base64").toString("utf8").split(":");
  return { id, secret: rest.join(":") };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function eventLine(e: StandInEvent): string {
  const body = flattenBlocks(e.blocks, e.text);
  switch (e.kind) {
    case "post":
      return `#${e.channel} ← [post] ${body}`;
    case "reply":
      return `#${e.channel} ← [reply in thread ${e.threadTs}] ${body}`;
    case "update":
      return `#${e.channel} ← [update ${e.ts}] ${body}`;
    case "ephemeral":
      return `#${e.channel} ← [ephemeral to @${e.user}] ${body}`;
    case "file":
      return `#${e.channel ?? "(private)"} ← [file ${e.filename}, ${e.bytes} bytes] ${body}`;
    case "home":
      return `@${e.user} ← [home tab] ${body}`;
    case "modal":
      return `modal ← [${e.method}] ${body}`;
  }
}

/** Lines of the transcript kept (the newest). */
const TRANSCRIPT_KEEP = 2_000;

export async function startSlackStandIn(opts: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const logger = opts.logger ?? silentLogger;
  const out = opts.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const now = opts.now ?? Date.now;

  const calls: RecordedCall[] = [];
  const responses: RecordedResponse[] = [];
  const state: StandInState = {
    messages: new Map(),
    views: new Map(),
    published: new Map(),
    opened: [],
    files: [],
    reactions: new Map(),
    timeZones: new Map(),
  };
  let rules: FailureRule[] = [];
  const oauth = createOAuthRegistry(opts.oauthClient);
  for (const ws of opts.workspaces ?? []) oauth.declare(ws);
  const nowSec = () => Math.floor(now() / 1000);
  const hung = new Set<ServerResponse>();
  const dropHung = () => {
    for (const res of hung) res.destroy();
    hung.clear();
  };
  let lastMicros = 0;
  let idSeq = 0;
  let origin = "";

  // Slack's ts is seconds.microseconds; kept strictly increasing so every message is unique.
  const nextTs = () => {
    lastMicros = Math.max(Math.floor(now()) * 1000, lastMicros + 100);
    const sec = Math.floor(lastMicros / 1_000_000);
    return `${sec}.${String(lastMicros % 1_000_000).padStart(6, "0")}`;
  };
  const nextId = (prefix: string) => `${prefix}0${(++idSeq).toString(36).toUpperCase().padStart(7, "0")}`;

  // Every line it would print, numbered, for `npm run slack` to read back (GET /_standin/transcript).
  const transcript: { seq: number; line: string }[] = [];
  let lineSeq = 0;
  const note = (line: string) => {
    transcript.push({ seq: ++lineSeq, line });
    if (transcript.length > TRANSCRIPT_KEEP) transcript.splice(0, transcript.length - TRANSCRIPT_KEEP);
    if (opts.print) out(line);
  };

  const emit = (e: StandInEvent, method: string) => {
    note(eventLine(e));
    if (
      opts.blocksFile &&
      (e.kind === "post" || e.kind === "reply" || e.kind === "update" || e.kind === "ephemeral")
    ) {
      const line = { method, channel: e.channel, ts: e.ts, text: e.text, blocks: e.blocks ?? [] };
      appendFileSync(opts.blocksFile, `${JSON.stringify(line)}\n`);
    }
  };

  function takeRule(method: string, args: Obj, team?: string): FailureRule | undefined {
    const channel = args.channel ?? args.channel_id;
    const rule = rules.find(
      (r) =>
        r.remaining > 0 &&
        (r.method === method || (r.method === "*" && method !== "upload" && method !== "response_url")) &&
        (r.kind !== "error" || r.channel === undefined || r.channel === channel) &&
        (r.kind !== "rateLimit" || r.team === undefined || r.team === team) &&
        // A share: this rule's own count of the calls it matched decides (1 in `every`).
        (r.every === undefined || (r.seen = (r.seen ?? 0) + 1) % r.every === 0),
    );
    if (rule) rule.remaining -= 1;
    return rule;
  }

  /** Answers an injected failure; returns true when it did. */
  function applyRule(
    rule: FailureRule | undefined,
    call: RecordedCall | undefined,
    res: ServerResponse,
  ): boolean {
    if (!rule) return false;
    const note = (status: number, error: string) => {
      if (call) Object.assign(call, { ok: false, status, error });
    };
    switch (rule.kind) {
      case "rateLimit":
        note(429, "ratelimited");
        sendJson(
          res,
          429,
          { ok: false, error: "ratelimited" },
          { "retry-after": String(rule.retryAfterSeconds) },
        );
        return true;
      case "error":
        note(200, rule.code);
        sendJson(res, 200, { ok: false, error: rule.code });
        return true;
      case "serverError":
        note(rule.status, `http_${rule.status}`);
        res.writeHead(rule.status, { "content-type": "text/plain" });
        res.end("stand-in: injected server error");
        return true;
      case "hang":
        note(0, "hang");
        hung.add(res);
        res.on("close", () => hung.delete(res));
        return true;
    }
  }

  function tokenError(token: string | undefined): string | undefined {
    if (!token) return "not_authed";
    const issued = oauth.workspaceOf(token);
    if (issued) return oauth.tokenError(token, nowSec());
    if (opts.botToken ? token !== opts.botToken : !token.startsWith("xoxb-")) return "invalid_auth";
    return undefined;
  }

  async function handleApi(
    method: string,
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
  ) {
    const body = await readBody(req);
    const parsed = await parseArgs(req, body, query);
    const args = parsed.ok ? parsed.args : {};
    const token = bearer(req) ?? (typeof args.token === "string" ? args.token : undefined);
    delete args.token;
    const call: RecordedCall = {
      method,
      args,
      encoding: (req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")
        ? "json"
        : "form",
      at: now(),
      ok: false,
      status: 200,
      ...(token ? { token } : {}),
    };
    calls.push(call);

    const finish = (result: MethodResult) => {
      call.ok = result.ok;
      if (!result.ok) call.error = result.error;
      logger.debug(
        { method, ok: result.ok, error: result.ok ? undefined : result.error },
        "slack stand-in call",
      );
      sendJson(res, 200, result);
    };

    const ws = token ? oauth.workspaceOf(token) : undefined;
    const teamId = ws ? ((ws.isEnterpriseInstall ? ws.enterpriseId : ws.teamId) ?? "") : STANDIN_TEAM.id;
    if (applyRule(takeRule(method, args, teamId), call, res)) {
      logger.debug({ method, injected: call.error }, "slack stand-in injected failure");
      call.team = teamId;
      return;
    }
    if (method === "oauth.v2.access") return finish(oauth.access(args, basicAuth(req), nowSec()));
    call.team = teamId;
    if (method === "auth.revoke") {
      const err = tokenError(token);
      return finish(err || !token ? { ok: false, error: err ?? "not_authed" } : oauth.revoke(token));
    }
    if (!isKnownMethod(method)) return finish({ ok: false, error: "unknown_method" });
    const authError = tokenError(token);
    if (authError) return finish({ ok: false, error: authError });
    if (!parsed.ok) return finish({ ok: false, error: parsed.error });

    const ctx: MethodContext = {
      state,
      origin,
      call,
      nextTs,
      nextId,
      emit: (e) => emit(e, method),
      team: {
        id: teamId,
        name: ws?.teamName ?? ws?.enterpriseName ?? STANDIN_TEAM.name,
        ...(ws?.enterpriseId ? { enterpriseId: ws.enterpriseId } : {}),
        isEnterpriseInstall: ws?.isEnterpriseInstall === true,
      },
      isAdmin: (user) => oauth.isAdmin(user),
      users: () => oauth.usersOf(teamId),
      onJoin: (channel) => {
        rules = rules.filter(
          (r) => !(r.kind === "error" && r.code === "not_in_channel" && r.channel === channel),
        );
      },
    };
    finish(runMethod(method, args, ctx));
  }

  async function handleUpload(fileId: string, req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    if (applyRule(takeRule("upload", {}), undefined, res)) return;
    const file = state.files.find((f) => f.id === fileId);
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("file not found");
      return;
    }
    const ct = (req.headers["content-type"] ?? "").toLowerCase();
    let bytes = body;
    if (ct.startsWith("multipart/form-data")) {
      const form = await multipart(ct, body);
      const part = [...form.values()].find((v): v is File => typeof v !== "string");
      bytes = part ? Buffer.from(await part.arrayBuffer()) : Buffer.alloc(0);
    }
    file.bytes = bytes;
    file.uploaded = true;
    logger.debug({ fileId, bytes: bytes.length }, "slack stand-in upload");
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`OK - ${bytes.length}`);
  }

  async function handleResponseUrl(id: string, req: IncomingMessage, res: ServerResponse) {
    const raw = (await readBody(req)).toString("utf8");
    if (applyRule(takeRule("response_url", {}), undefined, res)) return;
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // kept as text
    }
    responses.push({ id, body, at: now() });
    const b = typeof body === "object" && body !== null ? (body as Obj) : {};
    const kind = typeof b.response_type === "string" ? b.response_type : "ephemeral";
    const flags = [kind, b.replace_original ? "replace" : "", b.delete_original ? "delete" : ""].filter(
      Boolean,
    );
    const text = flattenBlocks(
      Array.isArray(b.blocks) ? b.blocks : undefined,
      typeof b.text === "string" ? b.text : raw,
    );
    note(`response ${id} ← [${flags.join(", ")}] ${text}`);
    sendJson(res, 200, { ok: true });
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", origin || "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] === "api" && parts.length === 2 && parts[1]) {
      return handleApi(parts[1], req, res, url.searchParams);
    }
    if (req.method === "POST" && parts[0] === "upload" && parts[1] === "v1" && parts[2]) {
      return handleUpload(parts[2], req, res);
    }
    if (req.method === "POST" && parts[0] === "response" && parts[1]) {
      return handleResponseUrl(parts[1], req, res);
    }
    if (req.method === "GET" && url.pathname === "/_standin/transcript") {
      // What it printed after line `after` (dev/slack-cli.ts reads what the app did in reply).
      const after = Number(url.searchParams.get("after") ?? "0") || 0;
      return sendJson(res, 200, { ok: true, lines: transcript.filter((l) => l.seq > after), last: lineSeq });
    }
    if (req.method === "GET" && url.pathname === "/oauth/v2/authorize") {
      const a = answerAuthorize(url, oauth, opts.oauthClient);
      res.writeHead(a.status, { ...a.headers, "content-length": String(Buffer.byteLength(a.body)) });
      res.end(a.body);
      return;
    }
    sendJson(res, 404, { ok: false, error: "not_found" });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      logger.error({ err }, "slack stand-in failed to handle a request");
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: "standin_error" });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  const addRule = (rule: FailureRule) => {
    rules.push(rule);
  };
  const successful = (method: string) => calls.filter((c) => c.method === method && c.ok);

  return {
    timeZones: state.timeZones,
    url: `${origin}/api/`,
    calls,
    responses,
    files: state.files,
    oauth,
    views: { opened: state.opened, published: state.published },
    react({ channel, ts, user, name, removed }) {
      const byName = state.reactions.get(reactionKey(channel, ts)) ?? new Map<string, string[]>();
      const users = (byName.get(name) ?? []).filter((u) => u !== user);
      byName.set(name, removed ? users : [...users, user]);
      state.reactions.set(reactionKey(channel, ts), byName);
    },
    setTimeZone(user, timeZone) {
      state.timeZones.set(user, timeZone);
    },
    messages(channel) {
      return [...state.messages.values()]
        .filter((m) => channel === undefined || m.channel === channel)
        .sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    },
    posts: (method = "chat.postMessage") => successful(method),
    ephemerals: () => successful("chat.postEphemeral"),
    responseUrl: (id) => `${origin}/response/${encodeURIComponent(id ?? nextId("R"))}`,
    fail: {
      rateLimit: (method, o) =>
        addRule({
          kind: "rateLimit",
          method,
          remaining: o.count,
          retryAfterSeconds: o.retryAfterSeconds,
          ...(o.team !== undefined ? { team: o.team } : {}),
          ...(o.every !== undefined ? { every: o.every } : {}),
        }),
      error: (method, code, o = {}) =>
        addRule({
          kind: "error",
          method,
          code,
          remaining: o.count ?? Number.POSITIVE_INFINITY,
          ...(o.channel !== undefined ? { channel: o.channel } : {}),
        }),
      serverError: (method, o) =>
        addRule({
          kind: "serverError",
          method,
          remaining: o.count,
          status: o.status ?? 500,
          ...(o.every !== undefined ? { every: o.every } : {}),
        }),
      hang: (method, o) => addRule({ kind: "hang", method, remaining: o.count }),
      dropHung,
      clear: () => {
        rules = [];
      },
    },
    async waitFor(probe, o = {}) {
      const timeoutMs = o.timeoutMs ?? 5000;
      const intervalMs = o.intervalMs ?? 20;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = probe();
        if (v !== undefined && v !== false) return v;
        if (Date.now() >= deadline) {
          const recent = calls
            .slice(-5)
            .map((c) => `${c.method}${c.ok ? "" : `(${c.error})`}`)
            .join(", ");
          throw new Error(
            `Slack stand-in: condition not met within ${timeoutMs} ms (${calls.length} calls so far${recent ? `; last: ${recent}` : ""})`,
          );
        }
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },
    reset() {
      calls.length = 0;
      responses.length = 0;
      state.messages.clear();
      state.views.clear();
      state.published.clear();
      state.opened.length = 0;
      state.files.length = 0;
      state.reactions.clear();
      state.timeZones.clear();
      rules = [];
      oauth.reset();
      for (const ws of opts.workspaces ?? []) oauth.declare(ws);
    },
    close() {
      dropHung();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
