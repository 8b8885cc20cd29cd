import { describe, expect, it } from "vitest";
import { deliveriesLookSilent, SILENCE_THRESHOLD_MS } from "../../src/status/silence.js";

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
