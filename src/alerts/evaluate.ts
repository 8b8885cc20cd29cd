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
import { renderAlert, type AlertMessageInput } from "../slack/render/alert.js";
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
 * any number of schedulers and restarts post it once. A failed post gives the claim back
 * for the next run; a condition that still holds keeps its key alive (never repeated).
 */
export async function evaluateAlerts(deps: AlertsEvalDeps, owner: string): Promise<AlertsRunResult> {
  const now = deps.now ?? Date.now;
  const all = await deps.settings.all();
  const histories = new Map<string, GroupHistory | undefined>();
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
    const log = deps.logger.child({ channel: channelId, groupId: settings.groupId });
    try {
      posted += await fire(deps, log, channelId, settings, fired, owner);
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

/** Claims, posts and records the fired conditions of one (channel, group); returns messages posted. */
async function fire(
  deps: AlertsEvalDeps,
  log: Logger,
  channelId: string,
  settings: AlertSettings,
  fired: FiredAlert[],
  owner: string,
): Promise<number> {
  const claimed: FiredAlert[] = [];
  for (const a of fired) {
    const key = deps.keys.alertFired(channelId, a.condition);
    const ok = await deps.redis.set(key, `claimed:${owner}`, "PX", CLAIM_MS, "NX");
    if (ok === "OK") claimed.push(a);
    else if (a.kind !== "unanswered") await EXTEND.run(deps.redis, 1, key, a.windowMs);
  }
  if (claimed.length === 0) return 0;

  // Unanswered questions found in one run go out as one message; each spike as its own.
  const unanswered = claimed.filter((a) => a.kind === "unanswered");
  const messages: FiredAlert[][] = [
    ...(unanswered.length > 0 ? [unanswered] : []),
    ...claimed.filter((a) => a.kind !== "unanswered").map((a) => [a]),
  ];
  let posted = 0;
  for (const group of messages) {
    const keys = group.map((a) => deps.keys.alertFired(channelId, a.condition));
    try {
      await post(deps, log, channelId, settings, group);
      for (const [i, a] of group.entries()) {
        await deps.redis.set(keys[i] as string, "posted", "PX", a.windowMs);
      }
      posted++;
      log.info({ kind: group[0]?.kind, threads: group.flatMap((a) => a.threads).length }, "alert posted");
    } catch (err) {
      for (const k of keys) await UNCLAIM.run(deps.redis, 1, k, `claimed:${owner}`);
      throw err;
    }
  }
  return posted;
}

async function post(
  deps: AlertsEvalDeps,
  log: Logger,
  channelId: string,
  settings: AlertSettings,
  group: FiredAlert[],
): Promise<void> {
  const first = group[0];
  if (!first) return;
  const threads = group.flatMap((a) => a.threads);
  const permalinks = new Map<string, string>();
  for (const t of threads.slice(0, 40)) {
    const link = await permalinkOf(deps, channelId, t.id);
    if (link) permalinks.set(t.id, link);
  }
  const base = { settings, permalinks, threads };
  const input: AlertMessageInput =
    first.facts.kind === "unanswered"
      ? { ...base, kind: "unanswered", hours: first.facts.hours }
      : first.facts.kind === "negative"
        ? { ...base, ...first.facts }
        : { ...base, ...first.facts };
  const { text, blocks } = renderAlert(input);
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
