import type { Config } from "../config.js";
import { InsightClient } from "../insight/client.js";
import { isInsightError } from "../insight/errors.js";
import { oneLine, type CheckResult } from "./result.js";

const NAME = "Insight API key";

/** The system error code (ECONNREFUSED, ENOTFOUND, ...) under a network failure, if any. */
function networkReason(err: Error): string {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
  }
  return "no connection";
}

/** What to do for each way the first call can fail. */
function advice(err: unknown, config: Config): string {
  const base = config.insight.baseUrl;
  const path = `/api/${config.insight.apiVersion}/community`;
  if (!isInsightError(err)) return `the call failed (${oneLine(String(err), 120)}): check INSIGHT_BASE_URL`;
  const status = err.details.status;
  switch (err.code) {
    case "unauthorized":
      return "the Insight Service rejected INSIGHT_API_KEY (401): copy a valid key from the service's dashboard into .env";
    case "forbidden":
      return "INSIGHT_API_KEY may not list communities (403): ask the service's admin for a key that can read them";
    case "not_found":
      return `${base}${path} answered 404: check INSIGHT_BASE_URL (the part before /api) and INSIGHT_API_VERSION`;
    case "timeout":
      return `the Insight Service at ${base} did not answer in time: check INSIGHT_BASE_URL and the network`;
    case "network":
      return `cannot reach the Insight Service at ${base} (${networkReason(err)}): check INSIGHT_BASE_URL and the network`;
    case "rate_limited":
    case "server_error":
      return `the Insight Service answered ${status ?? err.code} at ${path}: it is busy or failing; try again in a few minutes`;
    case "invalid_json":
    case "schema_mismatch":
      return `${base} answered, but not like the Insight Service (${err.code}): check INSIGHT_BASE_URL`;
    default:
      return `${path} failed (${err.code}${status ? ` ${status}` : ""}): check INSIGHT_BASE_URL and INSIGHT_API_KEY`;
  }
}

/** Lists the communities the key reads, with their chat groups (direct-message groups left out). */
export async function checkInsight(config: Config, timeoutMs = 5_000): Promise<CheckResult[]> {
  const client = new InsightClient({
    baseUrl: config.insight.baseUrl,
    apiKey: config.insight.apiKey,
    apiVersion: config.insight.apiVersion,
    searchParam: config.insight.searchParam,
    timeoutMs,
    retry: { maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 1_000, maxTotalMs: timeoutMs * 2 },
  });
  try {
    const communities = await client.listCommunities();
    if (communities.length === 0) {
      return [
        {
          status: "warn",
          name: NAME,
          text: "the key works but reads no community: ask the service's admin to grant it the communities to follow",
        },
      ];
    }
    const described = await Promise.all(
      communities.map(async (c) => {
        const name = oneLine(c.name || c._id, 60);
        try {
          const groups = await client.listChatGroups(c._id, { excludeDM: true });
          return `${name} (${groups.length} chat group${groups.length === 1 ? "" : "s"})`;
        } catch {
          return `${name} (chat groups not readable)`;
        }
      }),
    );
    const n = communities.length;
    return [
      {
        status: "ok",
        name: NAME,
        text: `${config.insight.baseUrl} accepts it; it reads ${n} communit${n === 1 ? "y" : "ies"}: ${described.join(", ")}`,
      },
    ];
  } catch (err) {
    return [{ status: "fail", name: NAME, text: advice(err, config) }];
  } finally {
    // The check is over and its result stands; a client that will not close has nothing to add.
    await client.close().catch(() => undefined);
  }
}
