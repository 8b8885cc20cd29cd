import type { Config } from "../config.js";
import { InsightClient } from "../insight/client.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { RuntimeTuning } from "./runtime-tuning.js";

/** An Insight client for one connection (the env key's, or a workspace's), with the deployment's settings. */
export function insightClientOf(
  base: { config: Config; metrics: Metrics; tuning: RuntimeTuning },
  logger: Logger,
  c: { apiKey: string; baseUrl: string },
  onSuccess?: () => void,
): InsightClient {
  const { config, metrics, tuning } = base;
  return new InsightClient({
    baseUrl: c.baseUrl,
    apiKey: c.apiKey,
    apiVersion: config.insight.apiVersion,
    searchParam: config.insight.searchParam,
    logger,
    metrics,
    ...(tuning.insightTimeoutMs ? { timeoutMs: tuning.insightTimeoutMs } : {}),
    ...(tuning.insightRetry ? { retry: tuning.insightRetry } : {}),
    ...(onSuccess ? { onSuccess } : {}),
  });
}
