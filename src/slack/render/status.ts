import { Blocks, Md } from "slack-block-builder";
import { silenceIncidentCommunity } from "../../ops/incidents.js";
import { WATCH_INCIDENTS } from "../../ops/incidents.js";
import { watchLines, type ApiProbe, type QueueDepth, type StatusReport } from "../../status/status-report.js";
import { describeSlackError } from "../errors.js";
import type { Subscription } from "../../domain/subscription.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks } from "./limits.js";
import { overdueText } from "./overdue-text.js";
import type { RenderedMessage } from "./thread-digest.js";
import { formatNumber } from "../../domain/without-icu.js";
import { durationText, EMOJI, plural, readerDate } from "./wording.js";

const PAUSED_SHOWN = 10;

/** `<#C123>` for a real channel id (ours, from Slack), else the escaped text. */
export function channelRef(channelId: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(channelId) ? `<#${channelId}>` : `\`${escapeMrkdwn(channelId)}\``;
}

export function apiLine(
  api: ApiProbe | undefined,
  lastUnauthorizedAt: string | undefined,
  notConnected = false,
): string {
  if (notConnected) {
    return `${EMOJI.notConnected} *Insight API:* not connected yet. A workspace admin connects it on the app's Home tab.`;
  }
  if (!api) {
    return lastUnauthorizedAt
      ? `${EMOJI.problem} *Insight API:* not checked; last rejected the key ${readerDate(lastUnauthorizedAt)}`
      : "*Insight API:* not checked";
  }
  if (api.keyValid === false) {
    return `${EMOJI.broken} *Insight API:* reachable, but it rejected the API key (401). Operators have been alerted; fix INSIGHT_API_KEY.`;
  }
  if (api.reachable && api.error === undefined) {
    const n =
      api.communities === undefined
        ? ""
        : `, ${plural(api.communities, "community", "communities")} readable`;
    return `${EMOJI.ok} *Insight API:* reachable, key accepted (${api.ms} ms${n})`;
  }
  if (api.reachable) {
    const why = api.error === "rate_limited" ? "busy (429)" : `answered with \`${api.error ?? "an error"}\``;
    return `${EMOJI.problem} *Insight API:* reachable but ${why}; the key could not be confirmed`;
  }
  return `${EMOJI.broken} *Insight API:* unreachable (\`${api.error ?? "unknown"}\` after ${api.ms} ms)`;
}

export function silenceLine(r: StatusReport): string {
  // The reconciler's evidence beats the time-based guess below: it saw the enrichment.
  const silent = (r.openAlerts ?? []).filter((id) => silenceIncidentCommunity(id) !== undefined);
  if (silent.length > 0) {
    const where = silent.length > 1 ? ` for ${silent.length} communities` : "";
    return `${EMOJI.problem} *Updates from the Insight Service have stopped*${where} while its API shows new summaries: the webhook is probably disabled. The app is catching up on the missed threads meanwhile. In the Insight dashboard, open the community's Webhooks settings, read "Last Error", fix the cause and re-enable the webhook.`;
  }
  const s = r.silence;
  if (!s || !r.subscriptions)
    return `${EMOJI.problem} Webhook silence could not be checked (Redis did not answer).`;
  if (s.since === undefined) return "No active subscriptions: no updates are expected.";
  const quiet = durationText(s.quietForMs ?? 0);
  if (!s.silent) {
    return s.since === "last-delivery"
      ? `${EMOJI.ok} Thread updates arrive normally (last one ${quiet} ago).`
      : `${EMOJI.ok} No thread update yet; subscriptions are ${quiet} old, within the ${durationText(r.silenceThresholdMs)} allowance.`;
  }
  const known = s.communities.filter(Boolean);
  const from =
    known.length === 0
      ? ""
      : ` from community ${known
          .slice(0, 3)
          .map((c) => `\`${escapeAndTruncate(c, 40)}\``)
          .join(", ")}${known.length > 3 ? ` and ${known.length - 3} more` : ""}`;
  const what =
    s.since === "last-delivery"
      ? `No thread update${from} for ${quiet}`
      : `No thread update${from} ever, in ${quiet}`;
  return `${EMOJI.problem} *Updates look silent:* ${what} while ${plural(r.subscriptions.total - r.subscriptions.paused.length, "subscription")} wait. The webhook may be disabled: check its "Last Error" in the Insight dashboard and re-enable it.`;
}

function deliveriesText(r: StatusReport, now: Date): string {
  if (!r.deliveries) return `${EMOJI.broken} Could not read which webhooks arrived.`;
  return r.deliveries
    .map((d) => {
      const when = d.lastAt
        ? `last ${readerDate(d.lastAt)} (${durationText(now.getTime() - Date.parse(d.lastAt))} ago)`
        : "never";
      return `• \`${escapeAndTruncate(d.type, 40)}\`: ${when} · ${formatNumber(d.count)} received`;
    })
    .join("\n");
}

function queuesText(r: StatusReport): string {
  if (!r.queues) return `${EMOJI.broken} Could not read queue depths.`;
  return r.queues
    .map((q) => {
      const mark = q.failed > 0 ? ` ${EMOJI.problem}` : "";
      const workers =
        q.workers === undefined
          ? ""
          : q.workers === 0
            ? ` · ${EMOJI.problem} no worker connected${q.waiting > 0 ? ": jobs are not being processed" : ""}`
            : ` · ${q.workers} worker${q.workers === 1 ? "" : "s"}`;
      return `• \`${q.name}\`: ${q.waiting} waiting · ${q.active} active · ${q.delayed} delayed · ${q.failed} failed${mark}${workers}`;
    })
    .join("\n");
}

function deadLettersText(r: StatusReport): string {
  const d = r.deadLetters;
  if (!d) return "*Dead letters:* unknown";
  if (d.total === 0) return `*Dead letters:* none`;
  const reasons = Object.entries(d.byReason)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${escapeAndTruncate(k, 40)} ${v}`)
    .join(", ");
  return `${EMOJI.problem} *Dead letters:* ${d.total} (${reasons}); the newest ${d.kept} are kept for operators`;
}

/**
 * Why Slack refused a paused subscription's channel, as a sentence with the fix (one table:
 * slack/errors.ts); operators also see Slack's code.
 */
export function pausedReason(code: string, detail: boolean): string {
  const sentence = describeSlackError(code);
  return detail ? `${sentence} (\`${escapeAndTruncate(code, 60)}\`)` : sentence;
}

export function pausedLine(s: Subscription, detail = true): string {
  const why = s.paused ? ` — ${pausedReason(s.paused.code, detail)}` : "";
  return `• *${escapeAndTruncate(s.groupName || s.groupId, 100)}* in ${channelRef(s.channelId)}${why}`;
}

function subscriptionsText(r: StatusReport, detail = true): string {
  const s = r.subscriptions;
  if (!s) return "*Subscriptions:* unknown";
  const head = `*Subscriptions:* ${plural(s.total, "subscription")} in ${plural(s.channels, "channel")}`;
  if (s.paused.length === 0) return `${head}, none paused`;
  const lines = s.paused.slice(0, PAUSED_SHOWN).map((p) => pausedLine(p, detail));
  const more = s.paused.length > PAUSED_SHOWN ? [`…and ${s.paused.length - PAUSED_SHOWN} more`] : [];
  return [`${head}; ${EMOJI.problem} ${formatNumber(s.paused.length)} paused:`, ...lines, ...more].join("\n");
}

/**
 * The few lines the Home tab shows "at a glance", in the words `/insight status` uses for the
 * same viewer: queue figures for operators, the plain sentence for others; paused
 * subscriptions as a warning in both.
 */
export function healthGlance(r: StatusReport, view: StatusView = { detail: true }): string[] {
  // Not connected: the Home tab's Connect section above says so, with the button.
  const lines = [...(r.insightNotConnected ? [] : [apiLine(r.api, r.lastUnauthorizedAt)]), silenceLine(r)];
  if (!r.redis.ok)
    lines.unshift(`${EMOJI.broken} *Redis* did not answer: ${escapeAndTruncate(r.redis.error ?? "", 200)}`);
  lines.unshift(...watchLines(r.openAlerts).map((l) => `${EMOJI.broken} ${l}`));
  if ((r.overdue?.length ?? 0) > 0)
    lines.unshift(
      `${EMOJI.broken} *Some work is overdue*: nothing is moving it, so some digests are not going out.`,
    );
  if (r.queues && view.detail) {
    const sum = (f: (q: QueueDepth) => number) => r.queues?.reduce((n, q) => n + f(q), 0) ?? 0;
    const failed = sum((q) => q.failed);
    const stalled = r.queues.some((q) => q.workers === 0 && q.waiting > 0);
    lines.push(
      `${failed > 0 || stalled ? EMOJI.problem : EMOJI.ok} *Queues:* ${sum((q) => q.waiting)} waiting · ${sum((q) => q.active)} active · ${sum((q) => q.delayed)} delayed · ${failed} failed${stalled ? ` · ${EMOJI.problem} no worker connected` : ""}`,
    );
  } else if (r.queues) lines.push(plainQueuesText(r));
  const paused = r.subscriptions?.paused.length ?? 0;
  if (paused > 0)
    lines.push(
      `${EMOJI.problem} *Subscriptions:* ${formatNumber(paused)} paused: Slack refused their channel (listed below).`,
    );
  if (r.deadLetters && r.deadLetters.total > 0)
    lines.push(
      view.detail
        ? deadLettersText(r)
        : `${EMOJI.problem} ${plural(r.deadLetters.total, "update")} could not be used.`,
    );
  if (r.spool)
    lines.push(`${EMOJI.problem} *Spool:* ${plural(r.spool, "webhook call")} on disk, waiting for Redis`);
  return lines;
}

/** What a webhook type means to people who do not run the app. */
const DELIVERY_WORDS: Record<string, string> = {
  "chatthread-crud": "Thread updates",
  "chatmessage-crud": "New messages",
};

/** Deliveries in plain words: no webhook type names. */
function plainDeliveriesText(r: StatusReport): string {
  if (!r.deliveries) return `${EMOJI.broken} Could not read which updates arrived.`;
  return r.deliveries
    .map((d) => {
      const what = DELIVERY_WORDS[d.type] ?? "Other updates";
      const when = d.lastAt ? `last ${readerDate(d.lastAt)}` : "none received yet";
      return `• ${what}: ${when} · ${formatNumber(d.count)} received`;
    })
    .join("\n");
}

/**
 * Queues in one sentence: how much work waits or runs, whether anything failed or stalls; no
 * queue names. Delayed jobs are left out: most are the next runs of idle schedules (weekly
 * summaries, digests, alerts), which are not work in progress.
 */
function plainQueuesText(r: StatusReport): string {
  if (!r.queues) return `${EMOJI.broken} Could not read the work queues.`;
  const working = r.queues.reduce((n, q) => n + q.waiting + q.active, 0);
  const failed = r.queues.reduce((n, q) => n + q.failed, 0);
  const stalled = r.queues.some((q) => q.workers === 0 && q.waiting > 0);
  if ((r.overdue?.length ?? 0) > 0)
    return `${EMOJI.broken} Some work is overdue and nothing is moving it, so some digests are not going out; the app's admins have to look.`;
  if (stalled)
    return `${EMOJI.problem} Work is waiting and nothing is processing it; the app's admins have to look.`;
  if (failed > 0)
    return `${EMOJI.problem} ${plural(working, "task")} waiting or running; ${plural(failed, "task")} failed (the app's admins can see which).`;
  return `${EMOJI.ok} ${working === 0 ? "Nothing waiting: all work is done." : `${plural(working, "task")} waiting or running.`}`;
}

export interface StatusView {
  /** Operator detail (queue names, incident keys, dead-letter reasons, Redis errors). */
  detail: boolean;
}

/**
 * `/insight status`: webhook health, queues, dead letters, spool, API, paused subscriptions.
 * With `detail` off (people outside ADMIN_USER_IDS when it is set) the same facts in plain
 * words, without internal names.
 */
export function renderStatus(
  r: StatusReport,
  now: Date = new Date(r.at),
  view: StatusView = { detail: true },
): RenderedMessage {
  if (!view.detail) return renderPlainStatus(r);
  // The watch's incidents have lines of their own above.
  const otherAlerts = (r.openAlerts ?? []).filter((a) => !WATCH_INCIDENTS.has(a));
  const blocks: KnownBlock[] = toKnownBlocks(
    Blocks.Header({ text: "Insight Relay status" }),
    !r.redis.ok &&
      Blocks.Section({
        text: `${EMOJI.broken} *Redis did not answer* (${escapeAndTruncate(r.redis.error ?? "unknown", 200)}): parts of this report are missing.`,
      }),
    ...watchLines(r.openAlerts).map((l) => Blocks.Section({ text: `${EMOJI.broken} ${l}` })),
    overdueSection(r),
    Blocks.Section({ text: `${Md.bold("Webhooks")}\n${deliveriesText(r, now)}` }),
    Blocks.Section({ text: silenceLine(r) }),
    Blocks.Section({ text: `${Md.bold("Queues")}\n${queuesText(r)}` }),
    Blocks.Section({
      text: [
        deadLettersText(r),
        r.spool === undefined
          ? "*Spool:* unknown"
          : `${r.spool > 0 ? `${EMOJI.problem} ` : ""}*Spool:* ${plural(r.spool, "webhook call")} waiting on disk`,
      ].join("\n"),
    }),
    Blocks.Section({ text: apiLine(r.api, r.lastUnauthorizedAt, r.insightNotConnected) }),
    Blocks.Section({ text: subscriptionsText(r) }),
    otherAlerts.length > 0 &&
      Blocks.Context().elements(
        `Open operator alerts: ${otherAlerts.map((a) => `\`${escapeAndTruncate(a, 60)}\``).join(", ")}`,
      ),
    Blocks.Context().elements(`Checked ${readerDate(r.at)}`),
  );
  return { text: statusHeadline(r), blocks: fitBlocks(blocks) };
}

const OVERDUE_SHOWN = 10;

/** Operator detail: each queue and shard with jobs no worker moves. */
function overdueSection(r: StatusReport) {
  const overdue = r.overdue ?? [];
  if (overdue.length === 0) return undefined;
  const lines = overdue.slice(0, OVERDUE_SHOWN).map((o) => `• \`${o.queue}\`: ${overdueText(o)}`);
  const more = overdue.length > OVERDUE_SHOWN ? [`…and ${overdue.length - OVERDUE_SHOWN} more`] : [];
  return Blocks.Section({
    text: [
      `${EMOJI.broken} *Jobs are overdue*: no worker is moving them, so digests to some channels are not going out. Nothing is lost; restarting the worker processes of these queues moves them.`,
      ...lines,
      ...more,
    ].join("\n"),
  });
}

function statusHeadline(r: StatusReport): string {
  const problems = [
    !r.redis.ok,
    r.silence?.silent,
    r.api?.reachable === false,
    r.insightNotConnected,
    r.api?.keyValid === false,
    (r.subscriptions?.paused.length ?? 0) > 0,
    (r.overdue?.length ?? 0) > 0,
    ...watchLines(r.openAlerts).map(() => true),
  ].filter(Boolean).length;
  return problems === 0
    ? "Insight Relay status: all good"
    : `Insight Relay status: ${plural(problems, "problem")}`;
}

function renderPlainStatus(r: StatusReport): RenderedMessage {
  const dead = r.deadLetters?.total ?? 0;
  const alerts = r.openAlerts?.length ?? 0;
  const blocks: KnownBlock[] = toKnownBlocks(
    Blocks.Header({ text: "Insight Relay status" }),
    !r.redis.ok &&
      Blocks.Section({
        text: `${EMOJI.broken} *The app's storage did not answer*: parts of this report are missing.`,
      }),
    Blocks.Section({
      text: `${Md.bold("Updates from the Insight Service")}\n${plainDeliveriesText(r)}`,
    }),
    Blocks.Section({ text: silenceLine(r) }),
    Blocks.Section({ text: `${Md.bold("Work")}\n${plainQueuesText(r)}` }),
    (dead > 0 || (r.spool ?? 0) > 0) &&
      Blocks.Section({
        text: `${EMOJI.problem} ${[
          dead > 0 ? `${plural(dead, "update")} could not be used` : "",
          (r.spool ?? 0) > 0 ? `${plural(r.spool ?? 0, "update")} kept on disk until storage is back` : "",
        ]
          .filter(Boolean)
          .join("; ")}.`,
      }),
    Blocks.Section({ text: apiLine(r.api, r.lastUnauthorizedAt, r.insightNotConnected) }),
    Blocks.Section({ text: subscriptionsText(r, false) }),
    alerts > 0 &&
      Blocks.Context().elements(
        `${plural(alerts, "operator alert")} open; the app's admins see the details in \`/insight status\`.`,
      ),
    Blocks.Context().elements(`Checked ${readerDate(r.at)}`),
  );
  return { text: statusHeadline(r), blocks: fitBlocks(blocks) };
}
