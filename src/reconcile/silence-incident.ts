import { escapeAndTruncate } from "../slack/mrkdwn.js";
import { EMOJI, plural, slackDate } from "../slack/render/wording.js";

export interface IncidentInput {
  /** When the open incident began, if one is open. */
  openedAtMs: number | undefined;
  /** Threads this run had to send because nothing was delivered since their change. */
  silentSends: number;
  lastDeliveryMs: number | undefined;
}

/**
 * Opens when the API shows enrichment that no delivery brought while nothing was delivered
 * at all (the webhook is most likely disabled upstream); closes as soon as a `chatthread-crud`
 * delivery arrives after the incident opened. A run that still finds silent changes keeps it
 * open even if one delivery slipped in.
 */
export function incidentStep(i: IncidentInput): "open" | "close" | "none" {
  if (i.silentSends > 0) return i.openedAtMs === undefined ? "open" : "none";
  if (i.openedAtMs !== undefined && i.lastDeliveryMs !== undefined && i.lastDeliveryMs > i.openedAtMs) {
    return "close";
  }
  return "none";
}

const ofCommunity = (community: string | undefined) =>
  community ? ` for community \`${escapeAndTruncate(community, 40)}\`` : "";

const when = (ms: number | undefined) =>
  ms === undefined
    ? "this app started counting"
    : // The reader's own zone in Slack; the UTC fallback in logs and notifications.
      slackDate(ms);

function every(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The ops alert. Group names come from the community side: escaped. Never names the webhook URL (it holds the secret). */
export function silenceAlertText(o: {
  /** The community whose webhook went quiet, when known. */
  community?: string | undefined;
  lastDeliveryMs: number | undefined;
  threads: number;
  groupNames: string[];
  intervalSeconds: number;
}): string {
  const groups = o.groupNames.slice(0, 5).map((g) => `*${escapeAndTruncate(g, 80)}*`);
  const more = o.groupNames.length > 5 ? ` and ${o.groupNames.length - 5} more` : "";
  return (
    `${EMOJI.problem} Insight webhook deliveries look stopped${ofCommunity(o.community)}: no \`chatthread-crud\` delivery${o.community ? " from it" : ""} since ${when(o.lastDeliveryMs)}, ` +
    `while the Insight API shows ${plural(o.threads, "newly enriched thread")} in ${groups.join(", ")}${more}.\n` +
    "The service disables a webhook after any failed or slow delivery, and only a person can turn it back on: " +
    "in the Insight dashboard, open the community's settings → Webhooks, read the webhook's *Last Error*, " +
    "fix the cause, re-enable it and press *Test Webhook*. `npm run doctor` prints the URL to use.\n" +
    `Meanwhile the reconciler posts the missed digests every ${every(o.intervalSeconds)}. ` +
    "This alert closes by itself when deliveries resume."
  );
}

export function silenceResolvedText(o: {
  community?: string | undefined;
  lastDeliveryMs: number;
  openedAtMs: number;
  backfilled: number;
}): string {
  return (
    `${EMOJI.ok} Insight webhook deliveries${ofCommunity(o.community)} resumed at ${when(o.lastDeliveryMs)} ` +
    `(silent since ${when(o.openedAtMs)} or earlier). ` +
    `The reconciler posted or updated ${plural(o.backfilled, "digest")} meanwhile.`
  );
}
