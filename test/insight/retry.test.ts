import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  decideRetry,
  DEFAULT_RETRY,
  parseRetryAfter,
  type RetryPolicy,
} from "../../src/insight/retry.js";

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000, maxTotalMs: 30_000 };
const NOW = Date.parse("2025-03-10T12:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
    expect(parseRetryAfter(["7", "9"], NOW)).toBe(7000);
  });

  it("reads an HTTP date relative to now, and a past date as 0", () => {
    expect(parseRetryAfter("Mon, 10 Mar 2025 12:00:42 GMT", NOW)).toBe(42_000);
    expect(parseRetryAfter("Mon, 10 Mar 2025 11:00:00 GMT", NOW)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    for (const v of [undefined, "", "soon", "-5", "12abc!", "1e3"])
      expect(parseRetryAfter(v, NOW)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("is a uniform share of a doubling cap (full jitter)", () => {
    expect(backoffDelay(1, policy, () => 0.999999)).toBe(249);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(250);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(500);
    expect(backoffDelay(1, policy, () => 0)).toBe(0);
    expect(backoffDelay(20, policy, () => 0.5)).toBe(5000);
  });

  it("stays within [0, min(maxDelay, base * 2^(n-1))] for any random value", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, r) => {
        const d = backoffDelay(n, policy, () => r);
        return d >= 0 && d <= Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
      }),
    );
  });
});

describe("decideRetry", () => {
  const base = {
    maxAttempts: 5,
    retryable: true,
    retryAfterMs: undefined,
    spentMs: 0,
    policy,
    random: () => 1,
  };

  it("retries a retryable failure after the jittered backoff", () => {
    expect(decideRetry({ ...base, attempt: 1 })).toEqual({ retry: true, delayMs: 250 });
    expect(decideRetry({ ...base, attempt: 3 })).toEqual({ retry: true, delayMs: 1000 });
  });

  it("waits at least the Retry-After, even beyond maxDelayMs", () => {
    expect(decideRetry({ ...base, attempt: 1, retryAfterMs: 2000 })).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry({ ...base, attempt: 1, retryAfterMs: 20_000 })).toEqual({
      retry: true,
      delayMs: 20_000,
    });
    expect(decideRetry({ ...base, attempt: 4, retryAfterMs: 1 })).toEqual({ retry: true, delayMs: 2000 });
  });

  it("stops when attempts run out or the failure is not retryable", () => {
    expect(decideRetry({ ...base, attempt: 5 })).toEqual({ retry: false, reason: "attempts" });
    expect(decideRetry({ ...base, attempt: 1, retryable: false })).toEqual({
      retry: false,
      reason: "not_retryable",
    });
  });

  it("stops now, reporting the Retry-After, when the wait would exceed the total budget", () => {
    expect(decideRetry({ ...base, attempt: 1, retryAfterMs: 60_000 })).toEqual({
      retry: false,
      reason: "budget",
      retryAfterMs: 60_000,
    });
    expect(decideRetry({ ...base, attempt: 2, retryAfterMs: 5000, spentMs: 26_000 })).toEqual({
      retry: false,
      reason: "budget",
      retryAfterMs: 5000,
    });
  });

  it("never plans waits that add up beyond maxTotalMs", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 40_000 }), { nil: undefined }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (retryAfters, r) => {
          let spent = 0;
          for (let attempt = 1; attempt <= retryAfters.length; attempt++) {
            const d = decideRetry({
              attempt,
              maxAttempts: 10,
              retryable: true,
              retryAfterMs: retryAfters[attempt - 1],
              spentMs: spent,
              policy: DEFAULT_RETRY,
              random: () => r,
            });
            if (!d.retry) break;
            const ra = retryAfters[attempt - 1];
            if (ra !== undefined && d.delayMs < ra) return false;
            spent += d.delayMs;
          }
          return spent < DEFAULT_RETRY.maxTotalMs;
        },
      ),
    );
  });
});
