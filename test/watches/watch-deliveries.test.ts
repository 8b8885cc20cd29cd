import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { TriageStore } from "../../src/store/triage.js";
import { WatchDmRefs } from "../../src/store/watch-dms.js";
import { WatchPendingStore } from "../../src/store/watch-pending.js";
import { WatchStore } from "../../src/store/watches.js";
import {
  gatherJobId,
  holdWatchMatch,
  prepareGatheredWatchDm,
  prepareWatchDm,
  prepareWatchDmEdit,
  prepareWatchDmTriage,
  sendGatheredWatchDm,
  sendWatchDm,
  sendWatchDmEdit,
  watchesMatching,
  type WatchDmDeps,
} from "../../src/watches/watch-deliveries.js";
import { allTexts } from "../slack/render/walk.js";
import { digest } from "../helpers/personal-builders.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/*
 * What the delivery path will call for watches, on real Redis with a recording Slack sender:
 * who gets what, a first DM, its edit, and a gathered DM after quiet hours.
 */

const NIGHT = Date.parse("2026-03-13T22:30:00Z"); // 23:30 in Berlin, 18:30 in New York
const ZONES: Record<string, string> = { U0MAYA: "Europe/Berlin", U0SAM: "America/New_York" };

describe("watch deliveries (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  let watches: WatchStore;
  let watchDms: WatchDmRefs;
  let watchPending: WatchPendingStore;
  let now: number;
  const sent: {
    method: "post" | "update";
    channel: string;
    ts?: string;
    text: string;
    blocks?: unknown[];
  }[] = [];
  let deps: WatchDmDeps;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("watchdm");
    const keys = stateKeys(prefix);
    watches = new WatchStore(redis, keys);
    watchDms = new WatchDmRefs(redis, keys);
    watchPending = new WatchPendingStore(redis, keys);
    now = NIGHT;
    sent.length = 0;
    deps = {
      watches,
      watchDms,
      watchPending,
      triage: new TriageStore(redis, keys),
      sender: {
        openDm: async (u) => `D${u.slice(1)}`,
        post: async (a) => {
          sent.push({ method: "post", ...a });
          return `1773443400.00010${sent.length}`;
        },
        update: async (a) => {
          sent.push({ method: "update", ...a });
        },
      },
      now: () => now,
    };
  });
  afterEach(async () => dropPrefix(prefix));

  const matching = (d = digest()) =>
    watchesMatching(
      {
        watches,
        watchDms,
        userTimeZoneOf: async (u) => ZONES[u] ?? "UTC",
        logger: silentLogger,
        now: () => now,
      },
      d,
    );

  it("a first match: one DM with the card, recorded; a later change edits that DM, never a second one", async () => {
    await watches.add("U0SAM", { words: ["refund"], filters: {} }, new Date(NIGHT));
    await watches.add("U0LEE", { words: ["arm64"], filters: {} }, new Date(NIGHT));
    const [d] = await matching();
    expect(d).toEqual({ kind: "dm", userId: "U0SAM", watchId: "1" });
    if (d?.kind !== "dm") return;
    const prepared = await prepareWatchDm(deps, d, digest());
    // A second change arriving at the same time finds the claim: one DM.
    expect(await prepareWatchDm(deps, d, digest())).toBeUndefined();
    if (!prepared) throw new Error("not prepared");
    expect(await sendWatchDm(deps, prepared)).toBe("sent");
    expect(sent.map((s) => [s.method, s.channel, s.text])).toEqual([
      ["post", "D0SAM", "Your watch “refund”: Refund failed after the upgrade"],
    ]);
    expect(allTexts(sent[0]?.blocks)[0]).toBe(":telescope: Matches your watch “refund”");

    const answered = digest({
      action: "updated",
      enrichedAt: "2026-03-13T23:00:00.000Z",
      questionResponseStatus: "answered",
      sentiment: "positive",
    });
    const [edit] = await matching(answered);
    expect(edit).toEqual({ kind: "edit", userId: "U0SAM", stillMatches: true });
    if (edit?.kind !== "edit") return;
    const e = await prepareWatchDmEdit(deps, edit, answered);
    if (!e) throw new Error("no edit");
    expect(await sendWatchDmEdit(deps, e)).toBe("updated");
    expect(sent[1]).toMatchObject({ method: "update", channel: "D0SAM", ts: "1773443400.000101" });
    expect(allTexts(sent[1]?.blocks)[1]).toBe(
      ":large_green_circle: *Refund failed after the upgrade* · Positive · :white_check_mark: Answered · 6 messages, 3 participants · :busts_in_silhouette: Lumen DB Support",
    );
    // An older enrichment finishing late never overwrites it.
    expect(await prepareWatchDmEdit(deps, edit, digest())).toBeUndefined();
  });

  it("quiet hours across a time-zone boundary: held for Berlin and sent gathered when they end there", async () => {
    const quiet = { from: 22 * 60, to: 7 * 60 };
    await watches.add("U0MAYA", { words: ["refund"], filters: {}, quiet }, new Date(NIGHT));
    await watches.add("U0SAM", { words: ["refund"], filters: {}, quiet }, new Date(NIGHT));
    const decided = await matching();
    expect(decided).toEqual([
      { kind: "held", userId: "U0MAYA", watchId: "1", dueAtMs: Date.parse("2026-03-14T06:00:00Z") },
      { kind: "dm", userId: "U0SAM", watchId: "1" },
    ]);
    const held = decided[0];
    if (held?.kind !== "held") return;
    expect(await holdWatchMatch(deps, held, digest())).toEqual({ userId: "U0MAYA", dueAtMs: held.dueAtMs });
    await holdWatchMatch(deps, held, digest({ threadId: "thr_2", title: "Second refund report" }));
    expect(gatherJobId("U0MAYA", held.dueAtMs)).toBe(`watch-gather|U0MAYA|${held.dueAtMs}`);
    // Not yet due: nothing to send.
    expect(await prepareGatheredWatchDm(deps, "U0MAYA")).toBeUndefined();
    now = held.dueAtMs;
    const gathered = await prepareGatheredWatchDm(deps, "U0MAYA");
    if (!gathered) throw new Error("nothing gathered");
    expect(await sendGatheredWatchDm(deps, gathered)).toBe("sent");
    expect(sent.map((s) => [s.channel, s.text])).toEqual([["D0MAYA", "Your watches: 2 threads matched"]]);
    expect(allTexts(sent[0]?.blocks)[1]).toMatch(
      /^:telescope: Held during your quiet hours · matched since /,
    );
    // Both threads now point at that DM: a later change edits it.
    expect(await watchDms.get("U0MAYA", "thr_2")).toMatchObject({ kind: "gathered", channel: "D0MAYA" });
    const later = digest({
      threadId: "thr_2",
      title: "Second refund report (solved)",
      enrichedAt: "2026-03-14T07:00:00.000Z",
    });
    const [edit] = await matching(later);
    expect(edit).toEqual({ kind: "edit", userId: "U0MAYA", stillMatches: true });
    if (edit?.kind !== "edit") return;
    const e = await prepareWatchDmEdit(deps, edit, later);
    if (!e) throw new Error("no edit");
    await sendWatchDmEdit(deps, e);
    expect(sent[1]?.method).toBe("update");
    expect(allTexts(sent[1]?.blocks)).toEqual(
      expect.arrayContaining([expect.stringContaining("Second refund report (solved)")]),
    );
  });

  it("a failed send gives the claim and the gathered matches back, for the retry", async () => {
    await watches.add("U0SAM", { words: ["refund"], filters: {} }, new Date(NIGHT));
    deps.sender.post = async () => {
      throw new Error("slack down");
    };
    const prepared = await prepareWatchDm(deps, { kind: "dm", userId: "U0SAM", watchId: "1" }, digest());
    if (!prepared) throw new Error("not prepared");
    await expect(sendWatchDm(deps, prepared)).rejects.toThrow("slack down");
    expect(await watchDms.get("U0SAM", "thr_refund")).toBeUndefined();
    await holdWatchMatch(deps, { kind: "daily", userId: "U0SAM", watchId: "1", dueAtMs: NIGHT }, digest());
    const gathered = await prepareGatheredWatchDm(deps, "U0SAM");
    if (!gathered) throw new Error("nothing gathered");
    await expect(sendGatheredWatchDm(deps, gathered)).rejects.toThrow("slack down");
    expect((await watchPending.peek("U0SAM")).map((m) => m.digest.threadId)).toEqual(["thr_refund"]);
  });

  it("a triage change re-renders the card DM with the thread's triage, keeping what it shows; a DM without sentiment never replaces one with it", async () => {
    const triage = new TriageStore(redis, stateKeys(prefix));
    await watches.add("U0SAM", { words: ["refund"], filters: {} }, new Date(NIGHT));
    const prepared = await prepareWatchDm(deps, { kind: "dm", userId: "U0SAM", watchId: "1" }, digest());
    if (!prepared) throw new Error("not prepared");
    await sendWatchDm(deps, prepared);
    // Posted with the card's metadata: a reaction on it names the thread.
    expect(sent[0]).toMatchObject({
      metadata: { event_type: "insight_thread_digest", event_payload: { thread_id: "thr_refund" } },
    });
    // Handled on another card of the thread (a channel's, by Maya).
    await triage.setHandled("thr_refund", true, "U0MAYA", new Date(NIGHT), { channelId: "C0SUPPORT" });
    const e = await prepareWatchDmTriage(deps, "U0SAM", "thr_refund");
    if (!e) throw new Error("no re-render");
    await sendWatchDmEdit(deps, e);
    expect(sent[1]).toMatchObject({ method: "update", channel: "D0SAM", ts: "1773443400.000101" });
    const shown = allTexts(sent[1]?.blocks);
    expect(shown[0]).toBe(":telescope: Matches your watch “refund”");
    expect(shown.join("\n")).toContain("Handled by <@U0MAYA>");
    expect(shown.join("\n")).toContain("Refund failed after the upgrade");
    // No card DM of that thread: nothing to re-render.
    expect(await prepareWatchDmTriage(deps, "U0LEE", "thr_refund")).toBeUndefined();
    // The same enrichment without its sentiment (a late job) does not replace the DM.
    const edit = { kind: "edit" as const, userId: "U0SAM", stillMatches: true };
    expect(await prepareWatchDmEdit(deps, edit, digest({ sentiment: undefined }))).toBeUndefined();
  });

  it("a DM that no longer matches says so, also when its triage re-renders it", async () => {
    await watches.add("U0SAM", { words: ["refund"], filters: {} }, new Date(NIGHT));
    const prepared = await prepareWatchDm(deps, { kind: "dm", userId: "U0SAM", watchId: "1" }, digest());
    if (!prepared) throw new Error("not prepared");
    await sendWatchDm(deps, prepared);
    const moved = digest({
      title: "Billing questions",
      summary: "Questions.",
      enrichedAt: "2026-03-13T23:00:00.000Z",
    });
    const e = await prepareWatchDmEdit(deps, { kind: "edit", userId: "U0SAM", stillMatches: false }, moved);
    if (!e) throw new Error("no edit");
    await sendWatchDmEdit(deps, e);
    const again = await prepareWatchDmTriage(deps, "U0SAM", "thr_refund");
    expect(allTexts(again?.blocks)[0]).toBe(
      ":telescope: No longer matches your watch “refund”; kept up to date here.",
    );
  });
});
