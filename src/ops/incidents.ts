/*
 * Every operational incident id, in one place: what opens an incident (OpsNotifier.alert), what
 * closes it (resolve), and what `status` reads back from the open ones. Ids are internal names:
 * `status` says them in words, never by name, to anyone but an operator.
 */

/** The Insight Service refused the API key (401). */
export const INSIGHT_UNAUTHORIZED = "insight-unauthorized";

/** Slack refused a channel with `code` (gone, archived, not a member); closed when it is subscribed again. */
export const channelIncident = (channelId: string, code: string) => `channel-${channelId}-${code}`;

/** Slack refused a message for a reason that is not the channel's (a token or scope problem). */
export const slackRefusedIncident = (code: string) => `slack-${code}`;

/** A channel's weekly summary (its report or its chart) could not be posted. */
export const weeklyIncident = (what: string, channelId: string, code: string) =>
  `weekly-${what}-${channelId}-${code}`;

/** A channel's alerts could not be posted. */
export const alertsIncident = (channelId: string, code: string) => `alerts-${channelId}-${code}`;

/** The health watch's incidents (ops/health-watch.ts). */
export const WORKERS_CANNOT_FETCH = "workers-cannot-fetch";
export const SPOOL_GROWING = "spool-growing";
export const INTAKE_STALLED = "intake-stalled";
/** Jobs overdue (domain/overdue.ts): status shows them from its own look (`overdue`), not by this name. */
export const JOBS_OVERDUE = "jobs-overdue";
/** The watch's incidents: status says them in words (`watchLines`, the overdue section), not by name. */
export const WATCH_INCIDENTS: ReadonlySet<string> = new Set([
  WORKERS_CANNOT_FETCH,
  SPOOL_GROWING,
  INTAKE_STALLED,
  JOBS_OVERDUE,
]);

/** "Webhook deliveries stopped" (the reconciler's; status reads it from ops.open()). */
export const WEBHOOK_SILENCE_INCIDENT = "webhook-silence";

/** One incident per community, since each community has its own webhook ("": not known). */
export const silenceIncidentId = (community: string) =>
  community ? `${WEBHOOK_SILENCE_INCIDENT}:${community}` : WEBHOOK_SILENCE_INCIDENT;

/** The community of a webhook-silence incident id ("" when not known); undefined for other ids. */
export function silenceIncidentCommunity(id: string): string | undefined {
  if (id === WEBHOOK_SILENCE_INCIDENT) return "";
  return id.startsWith(`${WEBHOOK_SILENCE_INCIDENT}:`)
    ? id.slice(WEBHOOK_SILENCE_INCIDENT.length + 1)
    : undefined;
}
