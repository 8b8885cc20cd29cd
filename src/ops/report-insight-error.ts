import { isInsightError } from "../insight/errors.js";
import type { OpsNotifier } from "./ops-notifier.js";

/** Tells operators about an Insight failure they must fix (401); every other failure is the caller's. */
export type ReportInsightError = (err: unknown) => Promise<void>;

export function insightErrorReporter(ops: Pick<OpsNotifier, "insightUnauthorized">): ReportInsightError {
  return async (err) => {
    if (!isInsightError(err) || err.code !== "unauthorized") return;
    // The alert is best effort: the caller is already answering for the failure itself.
    await ops.insightUnauthorized().catch(() => undefined);
  };
}
