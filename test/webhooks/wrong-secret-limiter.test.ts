import { describe, expect, it } from "vitest";
import { WrongSecretLimiter } from "../../src/webhooks/wrong-secret-limiter.js";

/** A clock the test moves by hand. */
function clock(start = 1_750_000_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const ADDRESS = "203.0.113.7";

describe("WrongSecretLimiter", () => {
  it("lets 30 wrong secrets in a minute through and blocks the address from then on", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(30, 10_000, c.now);
    const crossed: boolean[] = [];
    for (let i = 0; i < 29; i++) {
      crossed.push(limiter.record(ADDRESS));
      c.advance(1_000);
    }
    expect(limiter.blocked(ADDRESS)).toBe(false);
    expect(crossed).toEqual(Array(29).fill(false));
    // The one that takes it over the limit says so (the receiver logs that once).
    expect(limiter.record(ADDRESS)).toBe(true);
    expect(limiter.blocked(ADDRESS)).toBe(true);
  });

  it("a steady guesser stays limited, is announced once, and keeps a bounded record", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(30, 10_000, c.now);
    const crossings: number[] = [];
    // One guess a second for three minutes: every one counts, limited ones too.
    for (let i = 0; i < 180; i++) {
      if (i >= 30) expect(limiter.blocked(ADDRESS)).toBe(true);
      if (limiter.record(ADDRESS)) crossings.push(i);
      c.advance(1_000);
    }
    expect(crossings).toEqual([29]);
    // Once it stops, a minute frees it.
    c.advance(60_000);
    expect(limiter.blocked(ADDRESS)).toBe(false);
  });

  it("counts per address: one guesser does not block another", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(30, 10_000, c.now);
    for (let i = 0; i < 30; i++) limiter.record(ADDRESS);
    expect(limiter.blocked(ADDRESS)).toBe(true);
    expect(limiter.blocked("198.51.100.20")).toBe(false);
  });

  it("frees the address once the minute has passed, not before", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(30, 10_000, c.now);
    for (let i = 0; i < 30; i++) limiter.record(ADDRESS);
    c.advance(59_999);
    expect(limiter.blocked(ADDRESS)).toBe(true);
    c.advance(1);
    expect(limiter.blocked(ADDRESS)).toBe(false);
  });

  it("is a sliding window: old hits fall out one by one", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(30, 10_000, c.now);
    // 15 hits at t=0, 15 at t=30s.
    for (let i = 0; i < 15; i++) limiter.record(ADDRESS);
    c.advance(30_000);
    for (let i = 0; i < 15; i++) limiter.record(ADDRESS);
    expect(limiter.blocked(ADDRESS)).toBe(true);
    // At t=60s the first 15 have expired; 15 remain, so it is free again...
    c.advance(30_000);
    expect(limiter.blocked(ADDRESS)).toBe(false);
    // ...and 15 more within the window block it again.
    for (let i = 0; i < 15; i++) limiter.record(ADDRESS);
    expect(limiter.blocked(ADDRESS)).toBe(true);
  });

  it("honours a custom limit", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(3, 10_000, c.now);
    limiter.record(ADDRESS);
    limiter.record(ADDRESS);
    expect(limiter.blocked(ADDRESS)).toBe(false);
    limiter.record(ADDRESS);
    expect(limiter.blocked(ADDRESS)).toBe(true);
  });

  it("keeps at most maxAddresses: the least recently seen address is forgotten first", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(2, 3, c.now);
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      limiter.record(a);
      limiter.record(a);
    }
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) expect(limiter.blocked(a)).toBe(true);
    // 10.0.0.1 is seen again, so 10.0.0.2 is now the oldest.
    limiter.record("10.0.0.1");
    limiter.record("10.0.0.4");
    expect(limiter.blocked("10.0.0.2")).toBe(false);
    expect(limiter.blocked("10.0.0.1")).toBe(true);
    expect(limiter.blocked("10.0.0.3")).toBe(true);
  });

  it("memory stays bounded under a flood of distinct addresses", () => {
    const c = clock();
    const limiter = new WrongSecretLimiter(1, 100, c.now);
    for (let i = 0; i < 5_000; i++) limiter.record(`198.18.${i >> 8}.${i & 255}`);
    let remembered = 0;
    for (let i = 0; i < 5_000; i++) if (limiter.blocked(`198.18.${i >> 8}.${i & 255}`)) remembered++;
    expect(remembered).toBe(100);
    // The newest ones are those kept.
    expect(limiter.blocked(`198.18.${4_999 >> 8}.${4_999 & 255}`)).toBe(true);
    expect(limiter.blocked("198.18.0.0")).toBe(false);
  });
});
