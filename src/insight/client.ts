import { setTimeout as delay } from "node:timers/promises";
import { Pool } from "undici";
import type * as z from "zod";
import { silentLogger, type Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { InsightError } from "./errors.js";
import { failureForError, failureForStatus, type Failure } from "./failures.js";
import { walkPages } from "./paginate.js";
import {
  checkId,
  checkListParams,
  listQuery,
  searchQuery,
  withQuery,
  type ListParams,
  type Query,
} from "./params.js";
import {
  DEFAULT_RETRY,
  decideRetry,
  parseRetryAfter,
  type RetryDecision,
  type RetryPolicy,
} from "./retry.js";
import {
  chatGroupDetailSchema,
  chatGroupSchema,
  communitySchema,
  messageSchema,
  pageSchema,
  parseSearchResults,
  threadSchema,
  type ChatGroup,
  type ChatGroupDetail,
  type Community,
  type Message,
  type Page,
  type SearchResults,
  type Thread,
} from "./schemas.js";

export type { ListParams } from "./params.js";

export interface InsightClientOptions {
  /** The service's {base_url}; a path prefix is kept, a trailing slash is not needed. */
  baseUrl: string;
  apiKey: string;
  /** Default "v1"; every path is /api/{apiVersion}/... */
  apiVersion?: string;
  /** Default "query": the search text's parameter name (not shown in the interface). */
  searchParam?: string;
  /** Per attempt (headers and body), default 10_000. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Keep-alive pool size, default 16. */
  connections?: number;
  logger?: Logger;
  /** Every attempt is counted in metrics.insightCalls {endpoint, status}. */
  metrics?: Metrics;
  /** Told of every successful answer (a workspace's "key rejected" mark goes when the key works). */
  onSuccess?: () => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides retry.maxAttempts for this call (1: no retries). */
  maxAttempts?: number;
}

export type MessageListParams = ListParams & { chatThreadId?: string };
export type WalkParams = Omit<ListParams, "page" | "limit">;
export type MessageWalkParams = WalkParams & { chatThreadId?: string };
export type SearchParams = { page?: number; limit?: number; extra?: Record<string, string> };

/** Metric labels: templates, so a label never carries an id (bounded cardinality). */
const ENDPOINTS = {
  communities: "community",
  chatGroups: "community/:id/chatgroup",
  chatGroup: "chatgroup/:id",
  threads: "chatgroup/:id/displaychatthread",
  messages: "chatgroup/:id/displaychatmessage",
  search: "chatgroup/:id/search",
} as const;
type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];

const threadPageSchema = pageSchema(threadSchema);
const messagePageSchema = pageSchema(messageSchema);

type Outcome = { ok: true; body: unknown; status: number } | { ok: false; failure: Failure };

/**
 * The Insight Service's REST API, typed: one method per endpoint, the version pinned in every
 * path, parameters checked before sending, retries of 429/5xx/connection failures, and typed
 * errors. The API key lives in a private field and is only ever written into the X-API-Key
 * header; messages name the endpoint path and status, never headers, bodies or query strings.
 */
export class InsightClient {
  readonly #apiKey: string;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #searchParam: string;
  readonly #timeoutMs: number;
  readonly #policy: RetryPolicy;
  readonly #logger: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #onSuccess: (() => void) | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  #closed = false;

  constructor(opts: InsightClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new InsightError("invalid_params", "baseUrl must be an absolute http(s) URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new InsightError("invalid_params", "baseUrl must be an http(s) URL");
    }
    if (typeof opts.apiKey !== "string" || opts.apiKey === "") {
      throw new InsightError("invalid_params", "apiKey must not be empty");
    }
    const version = opts.apiVersion ?? "v1";
    if (!/^[A-Za-z0-9._-]+$/.test(version)) {
      throw new InsightError("invalid_params", "apiVersion must look like v1");
    }
    this.#apiKey = opts.apiKey;
    this.#prefix = `${url.pathname.replace(/\/+$/, "")}/api/${version}`;
    this.#searchParam = opts.searchParam ?? "query";
    this.#timeoutMs = positive("timeoutMs", opts.timeoutMs ?? 10_000);
    this.#policy = { ...DEFAULT_RETRY, ...definedOnly(opts.retry ?? {}) };
    positive("retry.maxAttempts", this.#policy.maxAttempts);
    this.#logger = (opts.logger ?? silentLogger).child({ component: "insight-client" });
    this.#metrics = opts.metrics;
    this.#onSuccess = opts.onSuccess;
    this.#sleep = opts.sleep ?? ((ms) => delay(ms));
    this.#random = opts.random ?? Math.random;
    this.#pool = new Pool(url.origin, {
      connections: positive("connections", opts.connections ?? 16),
      // Backstops only: the per-request timeout below fires first and is what callers see.
      headersTimeout: this.#timeoutMs + 1_000,
      bodyTimeout: this.#timeoutMs + 1_000,
    });
  }

  // --- Endpoints ------------------------------------------------------------------------------

  /** GET /community: the communities the key may read. */
  async listCommunities(o: CallOptions = {}): Promise<Community[]> {
    const body = await this.#get(ENDPOINTS.communities, "/community", [], o);
    return this.#parseList(ENDPOINTS.communities, "/community", communitySchema, body);
  }

  /** GET /community/{id}/chatgroup; `excludeDM` leaves direct-message groups out. */
  async listChatGroups(
    communityId: string,
    p: { excludeDM?: boolean } = {},
    o: CallOptions = {},
  ): Promise<ChatGroup[]> {
    const id = checkId("communityId", communityId);
    if (p.excludeDM !== undefined && typeof p.excludeDM !== "boolean") {
      throw new InsightError("invalid_params", "excludeDM must be true or false");
    }
    const q: Query = p.excludeDM === undefined ? [] : [["excludeDM", String(p.excludeDM)]];
    const path = `/community/${seg(id)}/chatgroup`;
    const body = await this.#get(ENDPOINTS.chatGroups, path, q, o);
    return this.#parseList(ENDPOINTS.chatGroups, path, chatGroupSchema, body);
  }

  /** GET /chatgroup/{id}. The detail shape is not shown: a `{ data: {...} }` wrapper is accepted too. */
  async getChatGroup(chatgroupId: string, o: CallOptions = {}): Promise<ChatGroupDetail> {
    const id = checkId("chatgroupId", chatgroupId);
    const path = `/chatgroup/${seg(id)}`;
    const body = await this.#get(ENDPOINTS.chatGroup, path, [], o);
    const direct = chatGroupDetailSchema.safeParse(body);
    if (direct.success) return direct.data;
    const wrapped = chatGroupDetailSchema.safeParse((body as { data?: unknown } | null)?.data);
    if (wrapped.success) return wrapped.data;
    throw this.#mismatch(path, direct.error);
  }

  /** GET /chatgroup/{id}/displaychatthread: one page of threads. */
  async listThreads(chatgroupId: string, p: ListParams = {}, o: CallOptions = {}): Promise<Page<Thread>> {
    const id = checkId("chatgroupId", chatgroupId);
    const q = listQuery(p);
    const path = `/chatgroup/${seg(id)}/displaychatthread`;
    const body = await this.#get(ENDPOINTS.threads, path, q, o);
    return this.#parsePage(ENDPOINTS.threads, path, threadPageSchema, body);
  }

  /** GET /chatgroup/{id}/displaychatmessage: one page of messages, of one thread with `chatThreadId`. */
  async listMessages(
    chatgroupId: string,
    p: MessageListParams = {},
    o: CallOptions = {},
  ): Promise<Page<Message>> {
    const id = checkId("chatgroupId", chatgroupId);
    const q = listQuery(p, { chatThreadId: threadIdParam(p.chatThreadId) });
    const path = `/chatgroup/${seg(id)}/displaychatmessage`;
    const body = await this.#get(ENDPOINTS.messages, path, q, o);
    return this.#parsePage(ENDPOINTS.messages, path, messagePageSchema, body);
  }

  /** GET /chatgroup/{id}/search. Any JSON answer parses (the shape is not shown); `raw` keeps it. */
  async search(
    chatgroupId: string,
    text: string,
    p: SearchParams = {},
    o: CallOptions = {},
  ): Promise<SearchResults & { raw: unknown }> {
    const id = checkId("chatgroupId", chatgroupId);
    const q = searchQuery(this.#searchParam, text, p);
    const body = await this.#get(ENDPOINTS.search, `/chatgroup/${seg(id)}/search`, q, o);
    return { ...parseSearchResults(body), raw: body };
  }

  // --- Walks ----------------------------------------------------------------------------------

  /** Every page of threads at limit=100. Parameters are checked now, before the first request. */
  threadPages(chatgroupId: string, p: WalkParams = {}, o: CallOptions = {}): AsyncIterable<Page<Thread>> {
    checkId("chatgroupId", chatgroupId);
    const base: ListParams = { range: p.range, sort: p.sort };
    checkListParams(base);
    return this.#walk(ENDPOINTS.threads, (page, limit) =>
      this.listThreads(chatgroupId, { ...base, page, limit }, o),
    );
  }

  /** Every thread, page after page. */
  threads(chatgroupId: string, p: WalkParams = {}, o: CallOptions = {}): AsyncIterable<Thread> {
    return items(this.threadPages(chatgroupId, p, o));
  }

  /** Every page of messages at limit=100. */
  messagePages(
    chatgroupId: string,
    p: MessageWalkParams = {},
    o: CallOptions = {},
  ): AsyncIterable<Page<Message>> {
    checkId("chatgroupId", chatgroupId);
    const base: MessageListParams = { range: p.range, sort: p.sort, chatThreadId: p.chatThreadId };
    checkListParams(base);
    threadIdParam(base.chatThreadId);
    return this.#walk(ENDPOINTS.messages, (page, limit) =>
      this.listMessages(chatgroupId, { ...base, page, limit }, o),
    );
  }

  /** Every message, page after page. */
  messages(chatgroupId: string, p: MessageWalkParams = {}, o: CallOptions = {}): AsyncIterable<Message> {
    return items(this.messagePages(chatgroupId, p, o));
  }

  /** Closes the keep-alive pool once requests in flight have finished. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
  }

  // --- Plumbing -------------------------------------------------------------------------------

  #walk<T extends { id: string }>(
    endpoint: Endpoint,
    fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  ): AsyncIterable<Page<T>> {
    return walkPages(fetchPage, {
      onStop: (why, page) =>
        this.#logger.warn({ endpoint, page, why }, "stopped walking pages early: the service kept answering"),
    });
  }

  /** One GET with retries; resolves to the parsed JSON of a 2xx answer. */
  async #get(endpoint: Endpoint, path: string, query: Query, o: CallOptions): Promise<unknown> {
    const fullPath = this.#prefix + path;
    const shownPath = this.#scrub(fullPath);
    const maxAttempts = o.maxAttempts ?? this.#policy.maxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new InsightError("invalid_params", "maxAttempts must be a whole number of at least 1");
    }
    let spentMs = 0;
    for (let attempt = 1; ; attempt++) {
      o.signal?.throwIfAborted();
      const timeoutMs = Math.max(1, Math.min(this.#timeoutMs, this.#policy.maxTotalMs - spentMs));
      const started = performance.now();
      const outcome = await this.#attempt(withQuery(fullPath, query), timeoutMs, o.signal);
      const tookMs = performance.now() - started;
      spentMs += tookMs;
      const label = outcome.ok
        ? String(outcome.status)
        : String(outcome.failure.status ?? outcome.failure.code);
      this.#metrics?.insightCalls.inc({ endpoint, status: label });
      this.#logger.debug(
        { endpoint, path: shownPath, status: label, attempt, ms: Math.round(tookMs) },
        "insight call",
      );
      if (outcome.ok) {
        this.#onSuccess?.();
        return outcome.body;
      }

      const f = outcome.failure;
      const decision = decideRetry({
        attempt,
        maxAttempts,
        retryable: f.retryable,
        retryAfterMs: f.retryAfterMs,
        spentMs,
        policy: this.#policy,
        random: this.#random,
      });
      if (!decision.retry) throw this.#error(f, fullPath, attempt, decision);
      this.#logger.warn(
        { endpoint, path: shownPath, status: label, attempt, delayMs: decision.delayMs },
        "insight call failed, retrying",
      );
      await this.#pause(decision.delayMs, o.signal);
      spentMs += decision.delayMs;
    }
  }

  async #attempt(
    pathWithQuery: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Outcome> {
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, timeoutMs);
    const onAbort = () => ac.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await this.#pool.request({
        method: "GET",
        path: pathWithQuery,
        headers: { "x-api-key": this.#apiKey, accept: "application/json" },
        signal: ac.signal,
      });
      const failure = failureForStatus(
        res.statusCode,
        parseRetryAfter(res.headers["retry-after"], Date.now()),
      );
      if (failure) {
        // Drain so the keep-alive connection goes back to the pool; the error body's shape is not shown.
        await res.body.dump().catch(() => undefined);
        return { ok: false, failure };
      }
      const text = await res.body.text();
      try {
        return { ok: true, status: res.statusCode, body: JSON.parse(text) as unknown };
      } catch {
        // No cause kept: V8's parse error quotes the body, which could hold anything.
        const type = String(res.headers["content-type"] ?? "no content-type").split(";")[0];
        return {
          ok: false,
          failure: {
            code: "invalid_json",
            reason: `${res.statusCode} with a body that is not JSON (${type}, ${Buffer.byteLength(text)} bytes)`,
            retryable: false,
            status: res.statusCode,
          },
        };
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        return {
          ok: false,
          failure: {
            code: "timeout",
            reason: `no answer within ${timeoutMs} ms`,
            retryable: true,
            cause: err,
          },
        };
      }
      return { ok: false, failure: failureForError(err) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Waits between attempts; a caller's abort ends the wait at once. */
  async #pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.#sleep(ms);
    signal.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.#sleep(ms), aborted]);
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  #error(
    f: Failure,
    path: string,
    attempts: number,
    decision: RetryDecision & { retry: false },
  ): InsightError {
    const retryAfterMs = decision.retryAfterMs ?? f.retryAfterMs;
    let message = `Insight API GET ${path}: ${f.reason}`;
    if (attempts > 1) message += ` (after ${attempts} attempts)`;
    if (decision.reason === "budget" && retryAfterMs !== undefined) {
      message += `; try again in ${Math.ceil(retryAfterMs / 1000)} s`;
    }
    return new InsightError(f.code, this.#scrub(message), {
      ...(f.status === undefined ? {} : { status: f.status }),
      path: this.#scrub(path),
      attempts,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(f.cause === undefined ? {} : { cause: f.cause }),
    });
  }

  #mismatch(path: string, error: z.ZodError): InsightError {
    // Issue paths and messages only: a value from the body could be anything.
    const first = error.issues[0];
    const where = first ? `${first.path.join(".") || "(body)"}: ${first.message}` : "unexpected shape";
    const full = this.#prefix + path;
    return new InsightError(
      "schema_mismatch",
      this.#scrub(`Insight API GET ${full}: unexpected answer (${where})`),
      {
        path: this.#scrub(full),
      },
    );
  }

  /** Defence in depth: an id or path that somehow holds the key still never shows it. */
  #scrub(text: string): string {
    return text.split(this.#apiKey).join("[redacted]");
  }

  #parseList<S extends z.ZodType>(endpoint: Endpoint, path: string, item: S, body: unknown): z.infer<S>[] {
    // The lists are bare arrays; a `{ data: [...] }` envelope is accepted in case they get paginated.
    const raw = Array.isArray(body) ? body : (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(raw)) {
      const full = this.#scrub(this.#prefix + path);
      throw new InsightError(
        "schema_mismatch",
        `Insight API GET ${full}: expected a JSON array, got ${describe(body)}`,
        { path: full },
      );
    }
    const out: z.infer<S>[] = [];
    let dropped = 0;
    for (const r of raw) {
      const p = item.safeParse(r);
      if (p.success) out.push(p.data);
      else dropped++;
    }
    if (dropped > 0) this.#logger.warn({ endpoint, dropped }, "dropped items that did not match the schema");
    return out;
  }

  #parsePage<T>(
    endpoint: Endpoint,
    path: string,
    schema: z.ZodType<{ data: { items: T[]; dropped: number }; pagination?: Page<T>["pagination"] }>,
    body: unknown,
  ): Page<T> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw this.#mismatch(path, parsed.error);
    const { items: data, dropped } = parsed.data.data;
    if (dropped > 0) {
      this.#logger.warn(
        { endpoint, dropped, page: parsed.data.pagination?.page },
        "dropped items that did not match the schema",
      );
    }
    return { data, pagination: parsed.data.pagination, dropped };
  }
}

const seg = (s: string) => encodeURIComponent(s);

function threadIdParam(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return checkId("chatThreadId", v);
}

function positive(name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0)
    throw new InsightError("invalid_params", `${name} must be a positive number`);
  return n;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function describe(body: unknown): string {
  if (body === null) return "null";
  if (Array.isArray(body)) return "an array";
  return typeof body === "object" ? "an object" : `a ${typeof body}`;
}

async function* items<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}
