import { describe, expect, it } from "vitest";
import {
  communitiesLookSilent,
  deliveriesLookSilent,
  SILENCE_THRESHOLD_MS,
} from "../../src/status/silence.js";

const now = new Date("2026-03-10T12:00:00.000Z");
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString();

describe("deliveriesLookSilent", () => {
  it("no subscriptions: never silent, nothing to measure", () => {
    expect(
      deliveriesLookSilent({ lastThreadDeliveryAt: hoursAgo(500), subscriptionCreatedAt: [], now }),
    ).toEqual({
      silent: false,
      quietForMs: undefined,
      since: undefined,
    });
  });

  it("measures from the last delivery; silent only past the threshold", () => {
    const subs = [hoursAgo(1000)];
    const recent = deliveriesLookSilent({
      lastThreadDeliveryAt: hoursAgo(2),
      subscriptionCreatedAt: subs,
      now,
    });
    expect(recent).toEqual({ silent: false, quietForMs: 2 * 3_600_000, since: "last-delivery" });
    const old = deliveriesLookSilent({
      lastThreadDeliveryAt: hoursAgo(25),
      subscriptionCreatedAt: subs,
      now,
    });
    expect(old.silent).toBe(true);
    expect(old.quietForMs).toBe(25 * 3_600_000);
  });

  it("exactly at the threshold is not yet silent", () => {
    const at = new Date(now.getTime() - SILENCE_THRESHOLD_MS).toISOString();
    expect(deliveriesLookSilent({ lastThreadDeliveryAt: at, subscriptionCreatedAt: [at], now }).silent).toBe(
      false,
    );
  });

  it("no delivery ever: measured from the oldest subscription, so a fresh install is not silent", () => {
    const fresh = deliveriesLookSilent({
      lastThreadDeliveryAt: undefined,
      subscriptionCreatedAt: [hoursAgo(1)],
      now,
    });
    expect(fresh).toEqual({ silent: false, quietForMs: 3_600_000, since: "first-subscription" });
    const stale = deliveriesLookSilent({
      lastThreadDeliveryAt: undefined,
      subscriptionCreatedAt: [hoursAgo(3), hoursAgo(30)],
      now,
    });
    expect(stale).toEqual({ silent: true, quietForMs: 30 * 3_600_000, since: "first-subscription" });
  });

  it("a custom threshold and unreadable dates", () => {
    expect(
      deliveriesLookSilent({
        lastThreadDeliveryAt: hoursAgo(2),
        subscriptionCreatedAt: [hoursAgo(5)],
        now,
        thresholdMs: 3_600_000,
      }).silent,
    ).toBe(true);
    // A garbled last-delivery time counts as none; a garbled subscription date as "now".
    expect(
      deliveriesLookSilent({ lastThreadDeliveryAt: "yesterday", subscriptionCreatedAt: ["never"], now }),
    ).toEqual({ silent: false, quietForMs: 0, since: "first-subscription" });
  });
});

describe("communitiesLookSilent", () => {
  const sub = (communityId: string | undefined, createdHoursAgo = 1000) => ({
    communityId,
    createdAt: hoursAgo(createdHoursAgo),
  });

  it("one community delivering does not hide another's silence; the quietest verdict is given", () => {
    const v = communitiesLookSilent({
      lastThreadDeliveryAt: hoursAgo(1),
      lastByCommunity: { a: hoursAgo(1), b: hoursAgo(30), c: hoursAgo(50) },
      subscriptions: [sub("a"), sub("b"), sub("c"), sub("a")],
      now,
    });
    expect(v).toEqual({
      silent: true,
      quietForMs: 50 * 3_600_000,
      since: "last-delivery",
      communities: ["c", "b"],
    });
  });

  it("a community that never delivered is measured from its own oldest subscription", () => {
    const v = communitiesLookSilent({
      lastThreadDeliveryAt: hoursAgo(1),
      lastByCommunity: { a: hoursAgo(1) },
      subscriptions: [sub("a"), sub("new", 2), sub("old", 48)],
      now,
    });
    expect(v).toMatchObject({ silent: true, since: "first-subscription", communities: ["old"] });
  });

  it("subscriptions of no known community are judged on deliveries from any", () => {
    const quiet = {
      lastThreadDeliveryAt: hoursAgo(1),
      lastByCommunity: {},
      subscriptions: [sub(undefined)],
      now,
    };
    expect(communitiesLookSilent(quiet)).toEqual({
      silent: false,
      quietForMs: 3_600_000,
      since: "last-delivery",
      communities: [],
    });
    expect(communitiesLookSilent({ ...quiet, lastThreadDeliveryAt: hoursAgo(25) })).toMatchObject({
      silent: true,
      communities: [""],
    });
  });

  it("with no community's time kept yet (an older store), the last delivery of any stands in", () => {
    expect(
      communitiesLookSilent({
        lastThreadDeliveryAt: hoursAgo(3),
        lastByCommunity: {},
        subscriptions: [sub("a"), sub("b")],
        now,
      }),
    ).toEqual({ silent: false, quietForMs: 3 * 3_600_000, since: "last-delivery", communities: [] });
  });

  it("all delivering: the overall verdict, from the last delivery of any", () => {
    expect(
      communitiesLookSilent({
        lastThreadDeliveryAt: hoursAgo(2),
        lastByCommunity: { a: hoursAgo(2), b: hoursAgo(5) },
        subscriptions: [sub("a"), sub("b")],
        now,
      }),
    ).toEqual({ silent: false, quietForMs: 2 * 3_600_000, since: "last-delivery", communities: [] });
  });
});
