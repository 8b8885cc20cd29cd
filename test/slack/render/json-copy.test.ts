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
      { numRuns: 2_000 },
    );
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
