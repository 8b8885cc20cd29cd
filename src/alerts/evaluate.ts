import { setTimeout as sleepFor } from "node:timers/promises";
import type { RedisClient as Redis } from "../store/redis.js";
import {
  detectNegativeSpike,
  detectUnanswered,
  detectVolumeSpike,
  historyStart,
  type AlertSettings,
  type FiredAlert,
  type GroupHistory,
  type HistoryThread,
} from "../domain/alerts.js";
import type { InsightClient } from "../insight/client.js";
import { walkPages } from "../insight/paginate.js";
import type { Logger } from "../log.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { SlackSender } from "../slack/outbound/slack-sender.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { refusedBySlack } from "../jobs/refused-by-slack.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { sendInTurn } from "../slack/outbound/send-in-turn.js";
import { renderAlerts, type AlertMessageInput } from "../slack/render/alert.js";
import type { StateKeys } from "../store/keys.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { AlertSettingsStore } from "./settings-store.js";
import { luaScript } from "../store/lua-script.js";

export interface AlertsEvalDeps {
  settings: Pick<AlertSettingsStore, "all">;
  insight: Pick<InsightClient, "listThreads">;
  /** Cards already posted in a channel, to link them. */
  refs: Pick<MessageRefStore, "get">;
  redis: Redis;
  keys: Pick<StateKeys, "alertFired">;
  sender: Pick<SlackSender, "post" | "permalink">;
  /** A channel Slack refuses for good is paused (jobs/refused-by-slack.ts). */
  subscriptions: Pick<SubscriptionStore, "pauseChannel">;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  ops: Pick<OpsNotifier, "alert">;
  reportInsightError(err: unknown): Promise<void>;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Pages of 100 read per group and run; beyond them the group counts as busy. Default 30. */
  maxPages?: number;
}

export interface AlertsRunResult {
  groups: number;
  posted: number;
  failedGroups: number;
}

/** How long a claimed condition is held while its alert is being posted. */
const CLAIM_MS = 5 * 60_000;

// Keeps a fired condition silent while it still holds: its window starts again from now.
export const EXTEND = luaScript(`
if redis.call('GET', KEYS[1]) == 'posted' then return redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return 0
`);
export const UNCLAIM = luaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
);

/**
 * One evaluation of every channel's alerts. Each group's last 30 days are read once from the
 * REST listing (shared by every channel alerting on it); the pure rules decide; each fired
 * condition is claimed with SET NX on its own key (per channel, condition and window), so
 * any number of schedulers and restarts post it once. What fires together for a channel goes
 * out as one message. A failed post gives the claims back for the next run; a condition that
 * still holds keeps its key alive (never repeated).
 */
export async function evaluateAlerts(deps: AlertsEvalDeps, owner: string): Promise<AlertsRunResult> {
  const now = deps.now ?? Date.now;
  const all = await deps.settings.all();
  const histories = new Map<string, GroupHistory | undefined>();
  const byChannel = new Map<string, { settings: AlertSettings; fired: FiredAlert[] }[]>();
  let posted = 0;
  let failedGroups = 0;
  for (const { channelId, settings } of all) {
    if (!histories.has(settings.groupId)) {
      histories.set(settings.groupId, await readHistory(deps, settings.groupId));
      if (histories.get(settings.groupId) === undefined) failedGroups++;
    }
    const history = histories.get(settings.groupId);
    if (!history) continue;
    const fired = detectAll(settings, history, now());
    if (fired.length === 0) continue;
    byChannel.set(channelId, [...(byChannel.get(channelId) ?? []), { settings, fired }]);
  }
  for (const [channelId, groups] of byChannel) {
    const log = deps.logger.child({ channel: channelId });
    try {
      posted += await fire(deps, log, channelId, groups, owner);
    } catch (err) {
      // One channel's failure (Slack refusing it) never holds back the others.
      log.warn({ err }, "alerts: could not post to this channel; its conditions are retried next run");
    }
  }
  return { groups: histories.size, posted, failedGroups };
}

export function detectAll(settings: AlertSettings, h: GroupHistory, nowMs: number): FiredAlert[] {
  const out: FiredAlert[] = [...detectUnanswered(settings, h, nowMs)];
  if (settings.negativeSpike) {
    const r = detectNegativeSpike(settings, h, nowMs);
    if (r.fires) out.push(r.alert);
  }
  if (settings.volumeSpike) {
    const r = detectVolumeSpike(settings, h, nowMs);
    if (r.fires) out.push(r.alert);
  }
  return out;
}

async function readHistory(deps: AlertsEvalDeps, groupId: string): Promise<GroupHistory | undefined> {
  const threads: HistoryThread[] = [];
  let truncated = false;
  try {
    const pages = walkPages(
      (page, limit) => deps.insight.listThreads(groupId, { page, limit, range: "last30Days", sort: "desc" }),
      {
        maxPages: deps.maxPages ?? 30,
        onStop: (why) => {
          if (why === "page_cap") truncated = true;
        },
      },
    );
    for await (const page of pages) {
      for (const t of page.data) {
        threads.push({
          id: t.id,
          title: t.title,
          firstMessageDate: t.firstMessageDate,
          sentiment: t.sentiment ?? undefined,
          isQuestionLed: t.isQuestionLed,
          questionResponseStatus: t.questionResponseStatus ?? undefined,
        });
      }
    }
  } catch (err) {
    await deps.reportInsightError(err);
    deps.logger.warn({ groupId, err }, "alerts: the group's threads could not be read; evaluated next run");
    return undefined;
  }
  return { threads, historyStartMs: historyStart(threads), truncated };
}

/** A fired condition with the settings it belongs to. */
interface Claimed {
  settings: AlertSettings;
  alert: FiredAlert;
  key: string;
}

/** Claims, posts (as one message) and records the fired conditions of one channel; returns messages posted. */
async function fire(
  deps: AlertsEvalDeps,
  log: Logger,
  channelId: string,
  groups: { settings: AlertSettings; fired: FiredAlert[] }[],
  owner: string,
): Promise<number> {
  const claimed: Claimed[] = [];
  for (const { settings, fired } of groups) {
    for (const a of fired) {
      const key = deps.keys.alertFired(channelId, a.condition);
      const ok = await deps.redis.set(key, `claimed:${owner}`, "PX", CLAIM_MS, "NX");
      if (ok === "OK") claimed.push({ settings, alert: a, key });
      else if (a.kind !== "unanswered") await EXTEND.run(deps.redis, 1, key, a.windowMs);
    }
  }
  if (claimed.length === 0) return 0;
  try {
    await post(deps, log, channelId, claimed);
    for (const c of claimed) await deps.redis.set(c.key, "posted", "PX", c.alert.windowMs);
  } catch (err) {
    for (const c of claimed) await UNCLAIM.run(deps.redis, 1, c.key, `claimed:${owner}`);
    throw err;
  }
  log.info(
    {
      kinds: [...new Set(claimed.map((c) => c.alert.kind))],
      threads: claimed.flatMap((c) => c.alert.threads).length,
    },
    "alert posted",
  );
  return 1;
}

/**
 * The message's parts: per group, its unanswered questions together (one line for all of
 * them), then each spike; in the order the channel's settings came.
 */
function messageParts(
  claimed: readonly Claimed[],
  permalinks: ReadonlyMap<string, string>,
): AlertMessageInput[] {
  const parts: AlertMessageInput[] = [];
  const groupIds = [...new Set(claimed.map((c) => c.settings.groupId))];
  for (const groupId of groupIds) {
    const mine = claimed.filter((c) => c.settings.groupId === groupId);
    const settings = mine[0]?.settings;
    if (!settings) continue;
    const base = { settings, permalinks };
    const unanswered = mine.filter((c) => c.alert.facts.kind === "unanswered");
    const first = unanswered[0]?.alert.facts;
    if (first?.kind === "unanswered") {
      parts.push({
        ...base,
        kind: "unanswered",
        hours: first.hours,
        threads: unanswered.flatMap((c) => c.alert.threads),
      });
    }
    for (const c of mine) {
      const f = c.alert.facts;
      if (f.kind === "negative") parts.push({ ...base, ...f, threads: c.alert.threads });
      else if (f.kind === "volume") parts.push({ ...base, ...f, threads: c.alert.threads });
    }
  }
  return parts;
}

async function post(
  deps: AlertsEvalDeps,
  log: Logger,
  channelId: string,
  claimed: readonly Claimed[],
): Promise<void> {
  const permalinks = new Map<string, string>();
  const threadIds = [...new Set(claimed.flatMap((c) => c.alert.threads.map((t) => t.id)))];
  for (const id of threadIds.slice(0, 40)) {
    const link = await permalinkOf(deps, channelId, id);
    if (link) permalinks.set(id, link);
  }
  const { text, blocks } = renderAlerts(messageParts(claimed, permalinks));
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms).then(() => undefined));
  await sendInTurn({
    channel: channelId,
    throttle: deps.throttle,
    now,
    wait: (untilMs) => sleep(untilMs - now()),
    maxRateLimitWaits: 3,
    logger: log,
    call: () => deps.sender.post({ channel: channelId, text, blocks }),
    onPermanent: (refusal) => refusedBySlack(deps, { channel: channelId, refusal, what: "alert" }),
  });
}

/** The permalink of the thread's card in this channel, when it has one. */
async function permalinkOf(
  deps: AlertsEvalDeps,
  channelId: string,
  threadId: string,
): Promise<string | undefined> {
  const ref = await deps.refs.get(channelId, threadId);
  if (!ref) return undefined;
  try {
    const link = await deps.sender.permalink(channelId, ref.ts);
    return /^https:\/\/[^|<>\s]+$/.test(link) ? link : undefined;
  } catch {
    // The card was deleted, or Slack is down: the alert names the thread without a link.
    return undefined;
  }
}
