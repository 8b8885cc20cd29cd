import fc from "fast-check";
import { BlockCollection, Blocks, Elements } from "slack-block-builder";
import { describe, expect, it } from "vitest";
import { jsonCopy } from "../../../src/slack/render/json-copy.js";
import { toKnownBlocks } from "../../../src/slack/render/known-blocks.js";

const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v) as string);

describe("jsonCopy", () => {
  it("returns what a JSON round trip returns, for any value JSON can write", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withBoxedValues: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
        (v) => {
          fc.pre(v !== undefined && typeof v !== "function" && typeof v !== "symbol");
          expect(jsonCopy(v)).toStrictEqual(viaJson(v));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it("writes -0 as 0, and calls toJSON with the key, on arrays too, leaving out what it turns into undefined", () => {
    const seen: string[] = [];
    const tagged = (out: unknown) => ({
      toJSON: (key: string) => {
        seen.push(key);
        return out;
      },
    });
    const list = Object.assign([1, 2], { toJSON: () => "a list" });
    const input = {
      zero: -0,
      list,
      gone: tagged(undefined),
      kept: tagged({ n: 1 }),
      items: [tagged(undefined), tagged(2)],
    };
    expect(jsonCopy(input)).toStrictEqual(viaJson(input));
    expect(jsonCopy(input)).toStrictEqual({ zero: 0, list: "a list", kept: { n: 1 }, items: [null, 2] });
    expect(Object.is((jsonCopy([-0]) as number[])[0], 0)).toBe(true);
    seen.length = 0;
    jsonCopy(input);
    expect(seen).toEqual(["gone", "kept", "0", "1"]);
    expect(() => jsonCopy(undefined)).toThrow(TypeError);
    expect(() => jsonCopy({ n: 1n })).toThrow(TypeError);
  });

  it("drops undefined properties, writes NaN, Infinity and undefined items as null, and calls toJSON", () => {
    const at = new Date("2026-11-24T12:00:00.000Z");
    const input = { a: undefined, b: [undefined, Number.NaN, -Infinity, 1], c: { at }, d: () => 1 };
    expect(jsonCopy(input)).toStrictEqual({
      b: [null, null, null, 1],
      c: { at: "2026-11-24T12:00:00.000Z" },
    });
  });

  it('keeps an own "__proto__" property a property', () => {
    const input = JSON.parse('{"__proto__":{"x":1},"y":2}') as object;
    const copy = jsonCopy(input);
    expect(copy).toStrictEqual(viaJson(input));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "y"]);
  });

  it("copies the block builders' objects into plain ones, sharing nothing with the input", () => {
    const [built] = BlockCollection(
      Blocks.Actions().elements(Elements.Button({ text: "Follow", actionId: "follow", value: "toggle" })),
    );
    const copy = jsonCopy(built);
    expect(copy).toStrictEqual(viaJson(built));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    (copy as unknown as { elements: { value: string }[] }).elements[0]!.value = "changed";
    expect(JSON.stringify(built)).toContain('"value":"toggle"');
  });

  it("toKnownBlocks gives the same blocks as before (a JSON round trip of the DTOs)", () => {
    const blocks = [Blocks.Header({ text: "Title" }), Blocks.Section({ text: "*Summary*" }).fields("a", "b")];
    expect(toKnownBlocks(...blocks)).toStrictEqual(viaJson(BlockCollection(...blocks)));
  });
});
