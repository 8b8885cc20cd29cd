import { inspect } from "node:util";
import {
  LogLevel,
  WebAPIHTTPError,
  WebAPIRequestError,
  WebClient,
  type Logger as SlackLogger,
  type WebAPICallResult,
  type WebClientOptions,
} from "@slack/web-api";
import { request } from "undici";
import * as z from "zod";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { classifySlackError, SlackCallError } from "./errors.js";
import { callSlackDirect, directCallable } from "./direct-call.js";
import type { ViewPayload } from "./render/view-payload.js";

export const DEFAULT_SLACK_API_URL = "https://slack.com/api/";
export const DEFAULT_SLACK_TIMEOUT_MS = 10_000;
/** The metrics/log name of the raw POST of file bytes to the upload URL. */
export const UPLOAD_STEP_METHOD = "files.upload_url";

export interface SlackClientOptions {
  token: string;
  /** Web API base (SLACK_API_URL); default https://slack.com/api/ */
  apiUrl?: string;
  logger: Logger;
  metrics: Metrics;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

type Args = Record<string, unknown>;

/**
 * Adapts pino to the Slack SDK's logger. The SDK's own debug chatter (whole request bodies)
 * goes to trace; the token is scrubbed from every line in case a message ever carries it.
 */
export function slackSdkLogger(logger: Logger, secrets: string[] = []): SlackLogger {
  const child = logger.child({ component: "slack-web-api" });
  const words = secrets.filter((s) => s.length >= 4);
  const line = (msg: unknown[]) => {
    const text = msg
      .map((m) => (typeof m === "string" ? m : inspect(m, { depth: 4, breakLength: Infinity })))
      .join(" ");
    return words.reduce((acc, s) => acc.split(s).join("[redacted]"), text);
  };
  const levels: Record<string, LogLevel> = {
    trace: LogLevel.DEBUG,
    debug: LogLevel.DEBUG,
    info: LogLevel.INFO,
    warn: LogLevel.WARN,
  };
  return {
    // Built only when written: the SDK's debug lines carry whole request and answer bodies.
    debug: (...msg: unknown[]) => {
      if (child.isLevelEnabled("trace")) child.trace(line(msg));
    },
    info: (...msg: unknown[]) => {
      if (child.isLevelEnabled("debug")) child.debug(line(msg));
    },
    warn: (...msg: unknown[]) => child.warn(line(msg)),
    error: (...msg: unknown[]) => child.error(line(msg)),
    // The level comes from LOG_LEVEL through pino; the SDK may not change it.
    setLevel: () => undefined,
    getLevel: () => levels[child.level] ?? LogLevel.ERROR,
    setName: () => undefined,
  };
}

/**
 * WebClient options shared by every Slack client of the app (ours and Bolt's `clientOptions`):
 * no retries and rate-limited calls rejected at once, because retries live in one layer, the
 * queue (DESIGN rule 7); a timeout so a hung Slack cannot hold a worker.
 */
export function slackWebClientOptions(o: {
  apiUrl?: string;
  logger: Logger;
  timeoutMs?: number;
  secrets?: string[];
}): WebClientOptions {
  return {
    slackApiUrl: o.apiUrl ?? DEFAULT_SLACK_API_URL,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: o.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS,
    logger: slackSdkLogger(o.logger, o.secrets),
  };
}

/**
 * The app's WebClient: every API call made through it (typed methods, apiCall, paginate) is
 * counted in `metrics.slackCalls` by method and outcome and logged with its duration.
 */
export class SlackWebClient extends WebClient {
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  readonly #timeoutMs: number;

  constructor(opts: SlackClientOptions) {
    super(
      opts.token,
      slackWebClientOptions({
        apiUrl: opts.apiUrl,
        logger: opts.logger,
        timeoutMs: opts.timeoutMs,
        secrets: [opts.token],
      }),
    );
    this.#logger = opts.logger.child({ component: "slack" });
    this.#metrics = opts.metrics;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS;
  }

  override apiCall(method: string, options: Args = {}): Promise<WebAPICallResult> {
    return this.observe(method, options, () => {
      const { token: callToken, ...args } = options;
      const token = typeof callToken === "string" ? callToken : this.token;
      // One POST over undici (direct-call.ts): about a quarter of the WebClient's CPU, and no
      // copy of the answer for a log line; file bytes still go by the WebClient.
      return token && directCallable(args)
        ? callSlackDirect({ apiUrl: this.slackApiUrl, method, token, args, timeoutMs: this.#timeoutMs })
        : super.apiCall(method, options);
    });
  }

  /** Counts and logs one outbound step; rethrows the original error. */
  async observe<T>(method: string, args: Args, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const channel =
      typeof args.channel === "string"
        ? args.channel
        : typeof args.channel_id === "string"
          ? args.channel_id
          : undefined;
    try {
      const result = await run();
      this.#metrics.slackCalls.inc({ method, outcome: "ok" });
      this.#logger.debug(
        { method, channel, ok: true, durationMs: Math.round(performance.now() - started) },
        "slack call",
      );
      return result;
    } catch (err) {
      const c = classifySlackError(err);
      this.#metrics.slackCalls.inc({ method, outcome: c.code });
      this.#logger.warn(
        {
          method,
          channel,
          ok: false,
          error: c.code,
          kind: c.kind,
          retryAfterMs: c.retryAfterMs,
          durationMs: Math.round(performance.now() - started),
        },
        `slack call failed: ${method} ${c.code}`,
      );
      throw err;
    }
  }
}

export function createSlackWebClient(opts: SlackClientOptions): SlackWebClient {
  return new SlackWebClient(opts);
}

export interface PostMessageArgs {
  channel: string;
  /** Fallback text for notifications and screen readers; always give it. */
  text: string;
  blocks?: readonly unknown[];
  thread_ts?: string;
  reply_broadcast?: boolean;
  unfurl_links?: boolean;
  unfurl_media?: boolean;
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface UpdateArgs {
  channel: string;
  ts: string;
  text: string;
  blocks?: readonly unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface PostEphemeralArgs {
  channel: string;
  user: string;
  text: string;
  blocks?: readonly unknown[];
  thread_ts?: string;
}

export type { ViewPayload };

export interface UploadFileArgs {
  channel: string;
  filename: string;
  bytes: Buffer | Uint8Array;
  title: string;
  initialComment?: string;
  threadTs?: string;
}

const messageRef = z.looseObject({ channel: z.string(), ts: z.string() });
const ephemeralRef = z.looseObject({ message_ts: z.string() });
const viewRef = z.looseObject({ view: z.looseObject({ id: z.string(), hash: z.string().optional() }) });
const uploadUrl = z.looseObject({ upload_url: z.string(), file_id: z.string() });
const authInfo = z.looseObject({
  url: z.string(),
  team: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  bot_id: z.string().optional(),
});
export type SlackAuthInfo = z.infer<typeof authInfo>;

/**
 * The one way the app talks to Slack (STYLE #5): every call is counted and logged by the
 * SlackWebClient underneath, and every failure is thrown as a SlackCallError carrying its
 * classification (permanent, rate_limited, transient, unknown).
 */
export class SlackApi {
  readonly client: SlackWebClient;
  readonly #timeoutMs: number;

  constructor(opts: { client: SlackWebClient; timeoutMs?: number }) {
    this.client = opts.client;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS;
  }

  async call<T = WebAPICallResult>(method: string, args: Args = {}): Promise<T> {
    try {
      return (await this.client.apiCall(method, args)) as T;
    } catch (err) {
      throw new SlackCallError(method, classifySlackError(err), err);
    }
  }

  async #parsed<S extends z.ZodType>(method: string, args: Args, schema: S): Promise<z.infer<S>> {
    const result = await this.call<unknown>(method, args);
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new SlackCallError(method, { kind: "unknown", code: "invalid_response", retryable: false });
    }
    return parsed.data;
  }

  async postMessage(args: PostMessageArgs): Promise<{ channel: string; ts: string }> {
    const r = await this.#parsed("chat.postMessage", { ...args }, messageRef);
    return { channel: r.channel, ts: r.ts };
  }

  async update(args: UpdateArgs): Promise<{ channel: string; ts: string }> {
    const r = await this.#parsed("chat.update", { ...args }, messageRef);
    return { channel: r.channel, ts: r.ts };
  }

  async postEphemeral(args: PostEphemeralArgs): Promise<{ message_ts: string }> {
    const r = await this.#parsed("chat.postEphemeral", { ...args }, ephemeralRef);
    return { message_ts: r.message_ts };
  }

  async publishHome(args: { user_id: string; view: ViewPayload }): Promise<{ id: string; hash?: string }> {
    return (await this.#parsed("views.publish", { ...args }, viewRef)).view;
  }

  async openView(args: { trigger_id: string; view: ViewPayload }): Promise<{ id: string; hash?: string }> {
    return (await this.#parsed("views.open", { ...args }, viewRef)).view;
  }

  /** A modal on top of the one the interaction came from (views.open does not stack). */
  async pushView(args: { trigger_id: string; view: ViewPayload }): Promise<{ id: string; hash?: string }> {
    return (await this.#parsed("views.push", { ...args }, viewRef)).view;
  }

  async updateView(
    args: ({ view_id: string } | { external_id: string }) & { view: ViewPayload; hash?: string },
  ): Promise<{ id: string; hash?: string }> {
    return (await this.#parsed("views.update", { ...args }, viewRef)).view;
  }

  async authTest(): Promise<SlackAuthInfo> {
    return this.#parsed("auth.test", {}, authInfo);
  }

  /** Slack's current upload flow: getUploadURLExternal, POST the bytes, completeUploadExternal. */
  async uploadFile(args: UploadFileArgs): Promise<{ fileId: string }> {
    const bytes = Buffer.from(args.bytes);
    const target = await this.#parsed(
      "files.getUploadURLExternal",
      { filename: args.filename, length: bytes.length },
      uploadUrl,
    );
    try {
      await this.client.observe(UPLOAD_STEP_METHOD, { channel: args.channel }, () =>
        this.#postBytes(target.upload_url, bytes),
      );
    } catch (err) {
      throw new SlackCallError(UPLOAD_STEP_METHOD, classifySlackError(err), err);
    }
    await this.call("files.completeUploadExternal", {
      files: [{ id: target.file_id, title: args.title }],
      channel_id: args.channel,
      ...(args.initialComment ? { initial_comment: args.initialComment } : {}),
      ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
    });
    return { fileId: target.file_id };
  }

  /** The upload URL is itself the credential: no token is sent with the bytes. */
  async #postBytes(url: string, bytes: Buffer): Promise<void> {
    let res;
    try {
      res = await request(url, {
        method: "POST",
        body: bytes,
        headers: { "content-type": "application/octet-stream" },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw new WebAPIRequestError(err instanceof Error ? err : new Error(String(err)));
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      const headers = Object.fromEntries(
        Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v ?? "")]),
      );
      throw new WebAPIHTTPError(res.statusCode, "", headers, text);
    }
  }
}

/** A SlackApi over a fresh SlackWebClient. */
export function createSlackApi(opts: SlackClientOptions): SlackApi {
  return new SlackApi({ client: createSlackWebClient(opts), timeoutMs: opts.timeoutMs });
}
