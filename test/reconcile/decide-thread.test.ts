import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decideThread,
  nextEntry,
  type DecideInput,
  type ShownDigest,
} from "../../src/reconcile/decide-thread.js";
import { digestVersion } from "../../src/store/message-refs.js";

const B = 1_000_000; // baseline taken
const P = 2_000_000; // previous reading
const R = 2_600_000; // this reading

const base = (over: Partial<DecideInput> = {}): DecideInput => ({
  entry: { f: "old", seen: P },
  thread: { fingerprint: "new", hasSentiment: true, startMs: B - 5_000, lastActivityMs: B - 5_000 },
  shown: [undefined],
  previousReadMs: P,
  baselineMs: B,
  lastDeliveryMs: undefined,
  readMs: R,
  ...over,
});

describe("decideThread", () => {
  it("an unchanged fingerprint sends nothing, whatever the channels show", () => {
    const d = decideThread(
      base({
        entry: { f: "same", seen: P },
        thread: { fingerprint: "same", hasSentiment: true, startMs: B, lastActivityMs: B },
      }),
    );
    expect(d).toEqual({ action: "unchanged" });
  });

  it("a thread first seen with no activity since the baseline is only remembered (no flood)", () => {
    expect(decideThread(base({ entry: undefined }))).toEqual({
      action: "remember",
      why: "quiet-since-baseline",
    });
    const undated = { fingerprint: "x", hasSentiment: true, startMs: undefined, lastActivityMs: undefined };
    expect(decideThread(base({ entry: undefined, thread: undated }))).toMatchObject({ action: "remember" });
    // Started long ago but active since: a thread brought back to life counts.
    const revived = { fingerprint: "x", hasSentiment: true, startMs: B - 86_400_000, lastActivityMs: P + 1 };
    expect(decideThread(base({ entry: undefined, thread: revived }))).toMatchObject({
      action: "send",
      timestampMs: P,
    });
  });

  it("a new thread while nothing was delivered since the last reading: sent now, stamped no later than it can have been enriched", () => {
    const start = P + 60_000;
    const d = decideThread(
      base({
        entry: undefined,
        thread: { fingerprint: "n", hasSentiment: true, startMs: start, lastActivityMs: start },
      }),
    );
    expect(d).toEqual({ action: "send", timestampMs: start, reason: "silence", since: P });
    // A thread older than the last reading is stamped with the reading: the change happened after it.
    const changed = decideThread(base({ lastDeliveryMs: P - 1 }));
    expect(changed).toEqual({ action: "send", timestampMs: P, reason: "silence", since: P });
  });

  it("a change every wanting channel already shows from a delivery since the last reading is explained", () => {
    const shown: ShownDigest[] = [
      { enrichedAtMs: P + 10, hasSentiment: true },
      { enrichedAtMs: P + 20, hasSentiment: true },
    ];
    expect(decideThread(base({ shown, lastDeliveryMs: P + 20 }))).toEqual({ action: "explained" });
    // One channel still shows an older rendering: not explained.
    expect(
      decideThread(base({ shown: [shown[0], { enrichedAtMs: P - 1, hasSentiment: true }] })).action,
    ).toBe("send");
  });

  it("while deliveries flow, an unexplained change waits one reading, then goes out stamped with the earlier bound", () => {
    const first = decideThread(base({ lastDeliveryMs: P + 1 }));
    expect(first).toEqual({ action: "defer", since: P });
    const entry = nextEntry(base().thread, first, R, base().entry);
    expect(entry).toEqual({ f: "new", seen: R, pending: P });

    const second = decideThread(
      base({ entry, previousReadMs: R, readMs: R + 600_000, lastDeliveryMs: R + 5 }),
    );
    expect(second).toEqual({ action: "send", timestampMs: P, reason: "confirmed", since: P });
    // Delivered in between: explained after all.
    const delivered = decideThread(
      base({
        entry,
        previousReadMs: R,
        shown: [{ enrichedAtMs: P + 30, hasSentiment: true }],
        lastDeliveryMs: R,
      }),
    );
    expect(delivered).toEqual({ action: "explained" });
  });

  it("a late reading (Redis or the scheduler was down) waits one reading: spooled deliveries may not be counted yet", () => {
    const d = decideThread(base({ late: true }));
    expect(d).toEqual({ action: "defer", since: P });
    const entry = nextEntry(base().thread, d, R, base().entry);
    // Still nothing delivered at the next reading: that is silence after all.
    const next = decideThread(base({ entry, previousReadMs: R, readMs: R + 600_000 }));
    expect(next).toEqual({ action: "send", timestampMs: P, reason: "silence", since: P });
  });

  it("content that changed again while waiting restarts the wait from the last reading", () => {
    const d = decideThread(
      base({
        entry: { f: "older", seen: R, pending: P },
        previousReadMs: R,
        readMs: R + 1000,
        lastDeliveryMs: R + 1,
      }),
    );
    expect(d).toEqual({ action: "defer", since: R });
  });

  it("a delivered digest lacking the sentiment the listing has is completed at its own timestamp", () => {
    const W = P + 500;
    const shown = [{ enrichedAtMs: W, hasSentiment: false }];
    expect(decideThread(base({ shown, lastDeliveryMs: W }))).toEqual({ action: "defer", since: P });
    const d = decideThread(base({ shown, lastDeliveryMs: P - 1 }));
    expect(d).toEqual({ action: "send", timestampMs: W, reason: "sentiment", since: P });
    // Same enrichment, one step newer (the sentiment): rule 2's tie-break, nothing newer.
    expect(digestVersion(W, true)).toBe(digestVersion(W, false) + 1);
    // No sentiment in the listing either: nothing to complete.
    expect(
      decideThread(
        base({ shown, thread: { fingerprint: "new", hasSentiment: false, startMs: B, lastActivityMs: B } }),
      ).action,
    ).toBe("explained");
  });

  it("no channel wants the thread (filters): remembered, nothing sent", () => {
    expect(decideThread(base({ shown: [] }))).toEqual({ action: "remember", why: "no-channel-wants-it" });
  });
});

describe("decideThread properties", () => {
  const shownArb = (min: number, max: number) =>
    fc.option(fc.record({ enrichedAtMs: fc.integer({ min, max }), hasSentiment: fc.boolean() }), {
      nil: undefined,
    });

  // Physical constraints: a thread starts before it is enriched, and readings follow each other.
  const inputArb = fc
    .record({
      previousReadMs: fc.integer({ min: B, max: 5_000_000 }),
      gap: fc.integer({ min: 1, max: 1_000_000 }),
      startOffset: fc.integer({ min: -2_000_000, max: 1_000_000 }),
      activeFor: fc.integer({ min: 0, max: 2_000_000 }),
      pending: fc.option(fc.integer({ min: B, max: 5_000_000 }), { nil: undefined }),
      sameFingerprint: fc.boolean(),
      hasEntry: fc.boolean(),
      listingSentiment: fc.boolean(),
      lastDelivery: fc.option(fc.integer({ min: 0, max: 7_000_000 }), { nil: undefined }),
      shown: fc.array(shownArb(0, 7_000_000), { minLength: 0, maxLength: 4 }),
    })
    .map((r): DecideInput => {
      const readMs = r.previousReadMs + r.gap;
      const startMs = Math.min(readMs, r.previousReadMs + r.startOffset);
      return {
        entry: r.hasEntry
          ? {
              f: r.sameFingerprint ? "fp" : "other",
              seen: r.previousReadMs,
              ...(r.pending !== undefined ? { pending: Math.min(r.pending, r.previousReadMs) } : {}),
            }
          : undefined,
        thread: {
          fingerprint: "fp",
          hasSentiment: r.listingSentiment,
          startMs,
          lastActivityMs: Math.min(readMs, startMs + r.activeFor),
        },
        // A rendering of this thread was enriched after the thread started.
        shown: r.shown.map((s) =>
          s ? { ...s, enrichedAtMs: Math.max(s.enrichedAtMs, startMs) } : undefined,
        ),
        previousReadMs: r.previousReadMs,
        baselineMs: B,
        lastDeliveryMs: r.lastDelivery,
        readMs,
      };
    });

  it("never sends a rendering newer than the newest one a delivery already showed since the change", () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const d = decideThread(i);
        if (d.action !== "send") return;
        const delivered = i.shown.filter(
          (s): s is ShownDigest => s !== undefined && s.enrichedAtMs >= d.since,
        );
        if (delivered.length === 0) return;
        // At most the newest delivered enrichment with its sentiment added...
        const ceiling = Math.max(...delivered.map((s) => digestVersion(s.enrichedAtMs, true)));
        expect(digestVersion(d.timestampMs, i.thread.hasSentiment)).toBeLessThanOrEqual(ceiling);
        // ...and when no delivered rendering lacks a sentiment, none of them is replaced at all.
        const lacking = delivered.some((s) => !s.hasSentiment && i.thread.hasSentiment);
        if (!lacking) {
          for (const s of delivered) {
            expect(digestVersion(d.timestampMs, i.thread.hasSentiment)).toBeLessThanOrEqual(
              digestVersion(s.enrichedAtMs, s.hasSentiment),
            );
          }
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("replaces every rendering older than the change, and sends only when something differs", () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const d = decideThread(i);
        if (d.action === "send") {
          for (const s of i.shown) {
            if (s && s.enrichedAtMs < d.since) expect(d.timestampMs).toBeGreaterThan(s.enrichedAtMs);
          }
          // Stamped no later than the reading, unless it completes a rendering delivered since.
          const completes = i.shown.some(
            (s) => s && s.enrichedAtMs === d.timestampMs && !s.hasSentiment && i.thread.hasSentiment,
          );
          if (!completes) expect(d.timestampMs).toBeLessThanOrEqual(i.readMs);
        }
        const unchanged = i.entry?.f === i.thread.fingerprint && i.entry.pending === undefined;
        if (unchanged) expect(d.action).toBe("unchanged");
        const allShown = i.shown.every(
          (s) =>
            s !== undefined &&
            s.enrichedAtMs >= (i.entry?.pending ?? i.previousReadMs) &&
            (s.hasSentiment || !i.thread.hasSentiment),
        );
        if (allShown && i.shown.length > 0 && i.entry?.pending === undefined)
          expect(d.action).not.toBe("send");
      }),
      { numRuns: 2_000 },
    );
  });
});
