import { InsightClient } from "../insight/client.js";
import { isInsightError } from "../insight/errors.js";
import type { Logger } from "../log.js";

export type KeyCheck = { ok: true } | { ok: false; problem: string };

/**
 * Checks a key before it is saved: GET /api/{version}/community with it, once, within Slack's
 * 3-second answer to a modal. The problem sentences say what to do and never hold the key.
 */
export async function checkInsightKey(o: {
  apiKey: string;
  baseUrl: string;
  apiVersion: string;
  searchParam: string;
  logger: Logger;
  timeoutMs?: number;
}): Promise<KeyCheck> {
  const client = new InsightClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    apiVersion: o.apiVersion,
    searchParam: o.searchParam,
    logger: o.logger,
    timeoutMs: o.timeoutMs ?? 2_000,
    retry: { maxAttempts: 1 },
  });
  try {
    await client.listCommunities();
    return { ok: true };
  } catch (err) {
    const code = isInsightError(err) ? err.code : "network";
    switch (code) {
      case "unauthorized":
        return { ok: false, problem: "The Insight Service refused this key. Check it and paste it again." };
      case "forbidden":
        return { ok: false, problem: "This key cannot read communities. Use a key of an account that can." };
      case "timeout":
      case "network":
      case "server_error":
      case "rate_limited":
        return {
          ok: false,
          problem: "The Insight Service did not answer in time. Please try again in a minute.",
        };
      default:
        return {
          ok: false,
          problem: "The service gave an unexpected answer: check the address and the key.",
        };
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}
