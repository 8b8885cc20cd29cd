import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byCodeUnit, formatNumber } from "../../src/domain/without-icu.js";

describe("formatting and ordering without ICU", () => {
  it("writes numbers exactly as Intl's en-US format does", () => {
    const intl = new Intl.NumberFormat("en-US");
    const edges = [
      0, -0, 1, 999, 1000, 1204, -1234567, 0.5, 1.0005, 2.0625, 999.9995, -0.0004, 1e-7, 1e20, 1e21,
    ];
    for (const n of [...edges, NaN, Infinity]) expect(formatNumber(n), String(n)).toBe(intl.format(n));
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double({ min: -1e22, max: 1e22 }), fc.maxSafeInteger()), (n) => {
        expect(formatNumber(n)).toBe(intl.format(n));
      }),
      { numRuns: 5_000 },
    );
  });

  it("orders ISO timestamps by time and ids by code unit", () => {
    const times = ["2026-03-05T10:00:00.000Z", "2025-12-31T23:59:59.999Z", "2026-03-05T09:59:59.999Z"];
    expect([...times].sort(byCodeUnit)).toEqual([times[1], times[2], times[0]]);
    expect(["thr_b", "thr_B", "thr_a"].sort(byCodeUnit)).toEqual(["thr_B", "thr_a", "thr_b"]);
    expect(byCodeUnit("x", "x")).toBe(0);
  });
});
