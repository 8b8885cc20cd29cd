import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RANGES } from "../../../src/insight/schemas.js";
import {
  decodeState,
  encodeShareState,
  encodeThreadRef,
  encodeThreadsState,
  MAX_STATE_GROUPS,
  shareStateSchema,
  threadRefSchema,
  threadsStateSchema,
} from "../../../src/slack/button-values.js";

describe("button state", () => {
  it("a threads state round-trips and always fits Slack's 2,000-character value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RANGES),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(
          fc.tuple(
            fc.string({ minLength: 1, maxLength: 100 }).map((x) => x.replace(/^$/, "x")),
            fc.string({ maxLength: 300 }),
          ),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        fc.nat(),
        (r, p, g, i) => {
          const value = encodeThreadsState({ r, p, i: i % g.length, g });
          expect(value.length).toBeLessThanOrEqual(2000);
          const back = decodeState(threadsStateSchema, value);
          expect(back).toBeDefined();
          expect(back?.r).toBe(r);
          expect(back?.p).toBe(p);
          const ids = back?.g.map(([id]) => id) ?? [];
          const wanted = g.slice(0, MAX_STATE_GROUPS).map(([id]) => id);
          // Every group kept, unless ids alone overflow: then the current one and its neighbours.
          if (JSON.stringify(wanted).length < 1_900) expect(ids).toEqual(wanted);
          expect(ids[back?.i ?? -1]).toBe(wanted[Math.min(i % g.length, wanted.length - 1)]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a share value always fits, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 5000 }),
        fc.string({ maxLength: 400 }),
        fc.string({ maxLength: 400 }),
        (tx, ti, a) => {
          const value = encodeShareState({ k: "message", gn: a, ti, tx, a });
          expect(value.length).toBeLessThanOrEqual(2000);
          expect(decodeState(shareStateSchema, value)?.k).toBe("message");
        },
      ),
    );
  });

  it("foreign or tampered values are refused", () => {
    expect(decodeState(threadsStateSchema, undefined)).toBeUndefined();
    expect(decodeState(threadsStateSchema, "not json")).toBeUndefined();
    expect(decodeState(threadsStateSchema, '{"r":"forever","p":1,"i":0,"g":[["a","A"]]}')).toBeUndefined();
    expect(decodeState(threadsStateSchema, '{"r":"allTime","p":1,"i":3,"g":[["a","A"]]}')).toBeUndefined();
    expect(decodeState(threadsStateSchema, '{"r":"allTime","p":0,"i":0,"g":[["a","A"]]}')).toBeUndefined();
    expect(
      decodeState(threadRefSchema, encodeThreadRef({ g: "g", t: "t", n: "x".repeat(500) }))?.n.length,
    ).toBe(80);
  });
});
