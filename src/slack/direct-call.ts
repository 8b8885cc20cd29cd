import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  type WebAPICallResult,
} from "@slack/web-api";
import { request } from "undici";

/**
 * Methods sent with a JSON body: every card's post and edit (Slack accepts JSON bodies for write
 * methods, "JSON-encoded bodies"); every other method is form-encoded, as Slack's WebClient sends
 * it. The WebClient form-encodes each argument, queues, wraps retries and copies the response,
 * 0.85 ms of CPU a post against 0.23 ms (`npm run bench:slack`); and it stringifies every answer
 * whole for a debug line, whatever the log level: a `conversations.history` page of 200 cards
 * (a card looked for after an ambiguous failure) cost about 10 ms that way.
 */
const JSON_METHODS: ReadonlySet<string> = new Set(["chat.postMessage", "chat.update"]);

/**
 * An argument never sent (a symbol key: neither form- nor JSON-encoded) saying what the caller
 * looks for in the answer: a successful answer whose bytes do not hold it is answered `{ ok: true }`
 * without being decoded or parsed. A card looked for after an ambiguous failure reads a page of up
 * to 200 cards; mostly the card is not there (the failure posted nothing), and that page's decode
 * and parse were the largest part of what a Slack 500 cost (bench:steady, API faults row). Only for a text
 * JSON cannot write otherwise (letters, digits, `.`, `_`, `-`), so the bytes either hold it or
 * the answer cannot.
 */
export const ONLY_IF_MENTIONED = Symbol("only if the answer mentions");
const PLAIN = /^[A-Za-z0-9._-]+$/;
/** A successful answer: Slack writes `ok` first. Anything else is parsed as usual. */
const OK_FIRST = /^\s*\{\s*"ok"\s*:\s*true\s*[,}]/;

/** Whether a call can go direct: no file bytes among its arguments (those go multipart, by the WebClient). */
export function directCallable(args: Record<string, unknown>): boolean {
  return Object.values(args).every(
    (v) => !(Buffer.isBuffer(v) || v instanceof Uint8Array || v instanceof Blob || isStream(v)),
  );
}

const isStream = (v: unknown): boolean =>
  typeof v === "object" && v !== null && typeof (v as { pipe?: unknown }).pipe === "function";

/** The form body the WebClient would send: objects JSON-encoded, null and undefined left out. */
function formBody(args: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null) continue;
    form.append(
      k,
      typeof v === "string" || typeof v === "number" || typeof v === "boolean"
        ? String(v)
        : JSON.stringify(v),
    );
  }
  return form.toString();
}

const flatHeaders = (h: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v ?? "")]),
  );

/**
 * One Slack Web API call, one POST over undici (JSON or form, by method). Fails with the
 * WebClient's own error classes (platform error, rate limited, HTTP error, request error), so
 * `classifySlackError` and every caller treat both paths alike; like the app's WebClient, it
 * never retries and rejects a 429 at once.
 */
export async function callSlackDirect(o: {
  apiUrl: string;
  method: string;
  token: string;
  args: Record<string, unknown> & { [ONLY_IF_MENTIONED]?: unknown };
  timeoutMs: number;
}): Promise<WebAPICallResult> {
  let status: number;
  let raw: Record<string, string | string[] | undefined>;
  let text: string;
  try {
    const base = o.apiUrl.endsWith("/") ? o.apiUrl : `${o.apiUrl}/`;
    const json = JSON_METHODS.has(o.method);
    const res = await request(new URL(o.method, base), {
      method: "POST",
      headers: {
        authorization: `Bearer ${o.token}`,
        "content-type": json ? "application/json; charset=utf-8" : "application/x-www-form-urlencoded",
      },
      body: json ? JSON.stringify(o.args) : formBody(o.args),
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    status = res.statusCode;
    raw = res.headers;
    const wanted = o.args[ONLY_IF_MENTIONED];
    if (status === 200 && typeof wanted === "string" && PLAIN.test(wanted)) {
      const bytes = Buffer.from(await res.body.arrayBuffer());
      if (!bytes.includes(wanted) && OK_FIRST.test(bytes.toString("latin1", 0, 64))) return { ok: true };
      text = bytes.toString("utf8");
    } else {
      text = await res.body.text();
    }
  } catch (err) {
    throw new WebAPIRequestError(err instanceof Error ? err : new Error(String(err)));
  }
  // The headers are read only for an error (flattening them for every post cost ~5 µs a card).
  const headers = () => flatHeaders(raw);
  if (status === 429) {
    const seconds = Number.parseInt(headers()["retry-after"] ?? "", 10);
    // Without a usable Retry-After the classification still says rate limited (from the status).
    throw Number.isFinite(seconds) && seconds >= 0
      ? new WebAPIRateLimitedError(seconds)
      : new WebAPIHTTPError(status, "", headers(), text);
  }
  if (status !== 200) throw new WebAPIHTTPError(status, "", headers(), text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new WebAPIHTTPError(status, "invalid JSON in the answer", headers(), text);
  }
  if (typeof body !== "object" || body === null) throw new WebAPIHTTPError(status, "", headers(), text);
  const result = body as WebAPICallResult & { error?: unknown };
  if (result.ok !== true) {
    const error = typeof result.error === "string" ? result.error : "unknown_error";
    throw new WebAPIPlatformError({ ...result, error });
  }
  return result;
}
