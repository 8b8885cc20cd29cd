import { isInsightError } from "../../insight/errors.js";

/**
 * One table from failures to the words a Slack user sees (STYLE #7). Never includes the
 * API key, URLs with secrets, or stack traces.
 */
export function replyForError(err: unknown, what = "that"): string {
  if (isInsightError(err)) {
    switch (err.code) {
      case "unauthorized":
        return "The Insight Service rejected the app's API key. An admin has been alerted; nothing can be read until the key is fixed.";
      case "forbidden":
        return `The API key cannot read ${what}. Ask a community admin to grant it access in the Insight dashboard.`;
      case "not_found":
        return `The Insight Service does not know ${what}. Check the id with \`/insight groups\`.`;
      case "rate_limited": {
        const s = err.details.retryAfterMs ? Math.ceil(err.details.retryAfterMs / 1000) : undefined;
        return `The Insight Service is busy right now. Try again ${s ? `in ${s} s` : "shortly"}.`;
      }
      case "timeout":
      case "network":
      case "server_error":
        return "The Insight Service did not answer properly. Try again in a minute; `/insight status` shows whether it is reachable.";
      case "invalid_params":
        return err.message;
      default:
        return "The Insight Service sent an answer the app could not read. Try again; if it persists, tell your admin.";
    }
  }
  return "Something went wrong on the app's side. Try again; if it persists, tell your admin.";
}
