/** Stable codes for every way a call to the Insight Service can fail. */
export const INSIGHT_ERROR_CODES = [
  "unauthorized", // 401: the key is missing, wrong or revoked (an operator problem)
  "forbidden", // 403: the key may not read that resource
  "not_found", // 404
  "rate_limited", // 429, after retries ran out
  "server_error", // 5xx, after retries ran out
  "bad_request", // other 4xx
  "timeout", // no answer within the per-request timeout
  "network", // connection refused, reset, DNS
  "invalid_json", // a 2xx whose body is not JSON
  "schema_mismatch", // a 2xx whose JSON is not the shape the interface promises
  "invalid_params", // rejected before sending: a range, limit, page or sort out of bounds
] as const;
export type InsightErrorCode = (typeof INSIGHT_ERROR_CODES)[number];

/**
 * An Insight API failure. The message names the endpoint path and status, never the API key
 * or request headers, so it is safe to log and to show to operators.
 */
export class InsightError extends Error {
  override readonly name = "InsightError";
  constructor(
    readonly code: InsightErrorCode,
    message: string,
    readonly details: {
      status?: number;
      path?: string;
      attempts?: number;
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
}

export const isInsightError = (e: unknown): e is InsightError => e instanceof InsightError;
