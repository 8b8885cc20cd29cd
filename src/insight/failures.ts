import type { InsightErrorCode } from "./errors.js";

/** One failed attempt, before it is known whether the call will try again. */
export interface Failure {
  code: InsightErrorCode;
  /** Words for the error message: what went wrong, never a header or a body. */
  reason: string;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  cause?: unknown;
}

const STATUS_WORDS: Record<number, string> = {
  400: "bad request",
  401: "unauthorized: the API key is missing, wrong or revoked",
  403: "forbidden: the API key may not read this resource",
  404: "not found",
  429: "rate limited",
};

/** The failure an HTTP status means; undefined for 2xx. 429 and 5xx are worth another try. */
export function failureForStatus(status: number, retryAfterMs?: number): Failure | undefined {
  if (status >= 200 && status < 300) return undefined;
  const ra = retryAfterMs === undefined ? {} : { retryAfterMs };
  const words = STATUS_WORDS[status];
  if (status === 401) return { code: "unauthorized", reason: `${status} ${words}`, retryable: false, status };
  if (status === 403) return { code: "forbidden", reason: `${status} ${words}`, retryable: false, status };
  if (status === 404) return { code: "not_found", reason: `${status} ${words}`, retryable: false, status };
  if (status === 429)
    return { code: "rate_limited", reason: `${status} ${words}`, retryable: true, status, ...ra };
  if (status >= 500 && status < 600) {
    return { code: "server_error", reason: `${status} server error`, retryable: true, status, ...ra };
  }
  if (status >= 300 && status < 400) {
    // undici does not follow redirects; a redirect here means a base URL that is not the API's.
    return {
      code: "bad_request",
      reason: `${status} redirect (check the base URL)`,
      retryable: false,
      status,
    };
  }
  return {
    code: "bad_request",
    reason: `${status} ${words ?? "unexpected status"}`,
    retryable: false,
    status,
  };
}

// Errors that mean the connection failed or broke: another attempt may well succeed.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);
// undici's own phase timeouts are backstops behind the client's per-request timeout.
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || TIMEOUT_CODES.has(code))) return code;
    // AggregateError (happy-eyeballs connect) carries the real codes in `errors`.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) {
      const c = errorCode(inner[0]);
      if (c) return c;
    }
    e = (e as { cause?: unknown }).cause;
  }
  const top = (err as { code?: unknown } | null)?.code;
  return typeof top === "string" ? top : undefined;
}

/**
 * The failure a thrown transport error means. Unknown errors (the client closed, a bug) are
 * reported as network failures but not retried, so they surface at once.
 */
export function failureForError(err: unknown): Failure {
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) {
    return { code: "timeout", reason: `no answer in time (${code})`, retryable: true, cause: err };
  }
  if (code && NETWORK_CODES.has(code)) {
    return {
      code: "network",
      reason: `could not reach the Insight API (${code})`,
      retryable: true,
      cause: err,
    };
  }
  return {
    code: "network",
    reason: `request failed (${code ?? (err instanceof Error ? err.name : "unknown error")})`,
    retryable: false,
    cause: err,
  };
}
