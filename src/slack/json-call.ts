import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  type WebAPICallResult,
} from "@slack/web-api";
import { request } from "undici";

/**
 * Methods sent as one JSON POST over undici instead of through the WebClient: every card's post
 * and edit. The WebClient form-encodes each argument, queues, wraps retries and copies the
 * response, 0.85 ms of CPU a call against 0.23 ms (`npm run bench:slack`). Both
 * methods accept JSON bodies (Slack's "JSON-encoded bodies" for write methods).
 */
export const JSON_METHODS: ReadonlySet<string> = new Set(["chat.postMessage", "chat.update"]);

const flatHeaders = (h: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v ?? "")]),
  );

/**
 * One Slack Web API call as JSON. Fails with the WebClient's own error classes (platform error,
 * rate limited, HTTP error, request error), so `classifySlackError` and every caller treat both
 * paths alike; like the app's WebClient, it never retries and rejects a 429 at once.
 */
export async function callSlackJson(o: {
  apiUrl: string;
  method: string;
  token: string;
  args: Record<string, unknown>;
  timeoutMs: number;
}): Promise<WebAPICallResult> {
  let status: number;
  let raw: Record<string, string | string[] | undefined>;
  let text: string;
  try {
    const base = o.apiUrl.endsWith("/") ? o.apiUrl : `${o.apiUrl}/`;
    const res = await request(new URL(o.method, base), {
      method: "POST",
      headers: {
        authorization: `Bearer ${o.token}`,
        "content-type": "application/json; charset=utf-8",
      },
      body: JSON.stringify(o.args),
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    status = res.statusCode;
    raw = res.headers;
    text = await res.body.text();
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
