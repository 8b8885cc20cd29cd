import { describe, expect, it } from "vitest";
import {
  atLeast,
  atMost,
  byFamily,
  keyFamily,
  overFloor,
  per,
  percentile,
  within,
} from "../../bench/steady-figures.js";
import { cycleOf, describeMix, parseMix } from "../../bench/steady-traffic.js";

// bench:steady's figures are read against issue 38's targets: the arithmetic behind them.
describe("bench:steady's figures", () => {
  it("takes percentiles by nearest rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("spreads a total over a count, NaN over none", () => {
    expect(per(300, 100)).toBe(3);
    expect(per(300, 0)).toBeNaN();
  });

  it("takes the bare Redis's CPU a second × the window off Redis's, never below 0", () => {
    expect(overFloor(50, 1, 20)).toBe(30);
    expect(overFloor(10, 1, 20)).toBe(0);
  });

  it("names key families by the parts that do not name one thing", () => {
    expect(keyFamily("steady:state:ref:C0STEADY001:6650c0de03", "steady")).toBe("state:ref:*:*");
    expect(keyFamily("steady:state:dedupe:abcdefabcdefabcdefabcdefabcdef", "steady")).toBe("state:dedupe:*");
    expect(keyFamily("steady:state:threads:recent", "steady")).toBe("state:threads:recent");
    expect(
      byFamily(
        [
          { key: "p:ref:C01:t1", bytes: 100 },
          { key: "p:ref:C01:t2", bytes: 120 },
          { key: "p:recent", bytes: 500 },
        ],
        "p",
      ),
    ).toEqual([
      { family: "recent", keys: 1, bytes: 500 },
      { family: "ref:*:*", keys: 2, bytes: 220 },
    ]);
  });

  it("checks each target against the run's figures", () => {
    expect(atMost("cpu", 1.99, 2, "ms").pass).toBe(true);
    expect(atMost("cpu", 2.01, 2, "ms").pass).toBe(false);
    expect(atMost("cpu", NaN, 2, "ms")).toEqual({ target: "cpu", figure: "-", pass: false });
    expect(atLeast("ratio", 50, 50, "%").pass).toBe(true);
    expect(within("ws", 3, 2, 1.5)).toEqual({ target: "ws", figure: "1.50×", pass: true });
    expect(within("ws", 3.1, 2, 1.5).pass).toBe(false);
    expect(within("ws", 0, 0, 1.5).pass).toBe(true);
    expect(within("ws", 1, 0, 1.5).pass).toBe(false);
  });
});

describe("bench:steady's mix", () => {
  it("spreads each cycle's kinds out, a new thread first", () => {
    expect(cycleOf({ created: 1, updated: 1, messages: 3 })).toEqual([
      "created",
      "updated",
      "message",
      "message",
      "message",
    ]);
    const c = cycleOf({ created: 2, updated: 1, messages: 4 });
    expect(c).toHaveLength(7);
    expect(c[0]).toBe("created");
    expect(c.filter((k) => k === "message")).toHaveLength(4);
  });

  it("reads --mix and says it", () => {
    expect(parseMix("1:1:3")).toEqual({ created: 1, updated: 1, messages: 3 });
    expect(() => parseMix("0:1:3")).toThrow(/at least one created/);
    expect(describeMix({ created: 1, updated: 1, messages: 3 })).toBe(
      "1 thread created : 1 thread updated : 3 messages (chatmessage-crud created)",
    );
  });
});
