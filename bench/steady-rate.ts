// bench:steady's rows at a fixed rate (100/s, 10/s, 100/s with API faults): one app on a fresh
// Redis, warmed up at the rate (not measured), then `seconds` of deliveries one at a time on one
// connection, and the window measured from the first send until every new thread's card is
// posted and nothing is left in the intake or any queue.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { startedInMs } from "./processes.js";
import { settle } from "./queues.js";
import { sendPaced } from "./senders.js";
import { nextChannel, startFollowing, type AppTarget, type SteadyContext } from "./steady-context.js";
import { percentile } from "./steady-figures.js";
import { SteadyTraffic } from "./steady-traffic.js";
import { openWindow, type WindowFigures } from "./steady-window.js";

/** The API faults row: 1 in FAULT_500_EVERY posts and edits answered 500, then 1 in FAULT_429_EVERY of the rest 429. */
export const FAULT_500_EVERY = 10;
export const FAULT_429_EVERY = 20;

export interface RateFigures {
  target: string;
  row: string;
  rate: number;
  deliveries: number;
  ok: number;
  /** Sent after their time: the one before was not yet acknowledged. */
  late: number;
  expectedCards: number;
  /** Cards in the channel that were posted in the window. */
  cards: number;
  /** Successful chat.postMessage calls to the channel in the window (more than cards: a duplicate). */
  posts: number;
  edits: number;
  /** Calls answered 500 or 429 by the stand-in in the window. */
  faults: number;
  ackP50: number;
  ackP99: number;
  settled: boolean;
  window: WindowFigures;
  counts: { created: number; updated: number; message: number };
  /**
   * `--profile`: the profile files, one a thread (the main thread's first; an all-in-one app's
   * roles thread writes its own), and how much of the main thread's profile comes before the window.
   */
  profile?: { files: string[]; skipMs: number };
}

export async function rateRow(
  ctx: SteadyContext,
  t: AppTarget,
  o: { row: string; rate: number; seconds: number; faults: boolean; profileDir?: string | undefined },
): Promise<RateFigures> {
  const { slack } = ctx;
  const channel = nextChannel();
  const profileDir = o.profileDir ? join(o.profileDir, t.dir ? "before" : "after") : undefined;
  const app = await startFollowing(ctx, t, channel, { profileDir });
  const traffic = new SteadyTraffic(ctx.emulator.store, app.group, ctx.mix);
  const cards = () => slack.messages(channel).length;
  const ofChannel = (method: string) => slack.posts(method).filter((c) => c.args.channel === channel).length;
  let result: RateFigures;
  let skipMs = 0;
  try {
    ctx.log(`${t.name}: ${o.row}: warm-up ${ctx.warmupSeconds} s at ${o.rate}/s`);
    await sendPaced({ url: app.url, rate: o.rate, seconds: ctx.warmupSeconds, next: () => traffic.next() });
    const warm = traffic.counts.created;
    await settle(app.redis.client, app.prefix, () => cards() >= warm);
    const before = { ...traffic.counts, cards: cards(), posts: ofChannel("chat.postMessage") };
    const updates0 = ofChannel("chat.update");
    const calls0 = slack.calls.length;
    if (o.faults) {
      for (const method of ["chat.postMessage", "chat.update"]) {
        slack.fail.serverError(method, { count: Number.POSITIVE_INFINITY, every: FAULT_500_EVERY });
        slack.fail.rateLimit(method, {
          count: Number.POSITIVE_INFINITY,
          retryAfterSeconds: 1,
          every: FAULT_429_EVERY,
        });
      }
    }
    ctx.log(`${t.name}: ${o.row}: ${o.seconds} s at ${o.rate}/s, one at a time`);
    // The profile starts with the process: what comes before the window is left out of it.
    skipMs = performance.now() - app.readyAt + (startedInMs(app.child) ?? 0);
    const w = await openWindow({
      appPid: app.pid,
      redisPid: app.redis.pid,
      redis: app.redis.client,
      floorPid: ctx.floor.pid,
    });
    const sent = await sendPaced({
      url: app.url,
      rate: o.rate,
      seconds: o.seconds,
      next: () => traffic.next(),
    });
    const expectedCards = traffic.counts.created - before.created;
    const done = await settle(app.redis.client, app.prefix, () => cards() - before.cards >= expectedCards);
    const window = await w.close(done.commands);
    slack.fail.clear();
    const faults = slack.calls.slice(calls0).filter((c) => c.status === 500 || c.status === 429).length;
    result = {
      target: t.name,
      row: o.row,
      rate: o.rate,
      deliveries: sent.sent,
      ok: sent.ok,
      late: sent.late,
      expectedCards,
      cards: cards() - before.cards,
      posts: ofChannel("chat.postMessage") - before.posts,
      edits: ofChannel("chat.update") - updates0,
      faults,
      ackP50: percentile(sent.ackMs, 50),
      ackP99: percentile(sent.ackMs, 99),
      settled: done.settled,
      window,
      counts: {
        created: expectedCards,
        updated: traffic.counts.updated - before.updated,
        message: traffic.counts.message - before.message,
      },
    };
  } finally {
    await app.stop();
  }
  // node --cpu-prof names the file CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile (thread 0: the main one).
  const threadOf = (f: string) => Number(f.split(".").at(-3));
  const files = profileDir
    ? readdirSync(profileDir)
        .filter((f) => f.includes(`.${app.pid}.`))
        .sort((a, b) => threadOf(a) - threadOf(b))
    : [];
  if (profileDir && files.length > 0)
    result.profile = { files: files.map((f) => join(profileDir, f)), skipMs };
  return result;
}
