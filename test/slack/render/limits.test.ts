import { describe, expect, it } from "vitest";
import type { KnownBlock } from "../../../src/slack/render/known-blocks.js";
import { fitBlocks, fitList, LIMITS } from "../../../src/slack/render/limits.js";
import { allTexts } from "./walk.js";

const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text } });
const header = (text: string): KnownBlock => ({ type: "header", text: { type: "plain_text", text } });
const lastText = (blocks: KnownBlock[]) => allTexts(blocks.at(-1)).join("");

describe("LIMITS", () => {
  it("holds the documented Block Kit limits", () => {
    expect(LIMITS).toMatchObject({
      blocksPerMessage: 50,
      sectionText: 3000,
      sectionFieldText: 2000,
      sectionFields: 10,
      headerText: 150,
      contextElements: 10,
      buttonText: 75,
      actionsElements: 25,
      messageBlocksJson: 12_000,
    });
  });
});

describe("fitBlocks", () => {
  it("leaves a small message untouched (and does not change its input)", () => {
    const blocks = [header("Hi"), section("hello")];
    const copy = structuredClone(blocks);
    expect(fitBlocks(blocks)).toEqual(copy);
    expect(blocks).toEqual(copy);
  });

  it("clamps each block to its own limits", () => {
    const out = fitBlocks(
      [
        header("H".repeat(400)),
        {
          type: "section",
          text: { type: "mrkdwn", text: "a &amp; ".repeat(600) },
          fields: Array.from({ length: 12 }, () => ({ type: "mrkdwn" as const, text: "f".repeat(2500) })),
        },
        {
          type: "context",
          elements: Array.from({ length: 14 }, (_, i) => ({ type: "mrkdwn" as const, text: `${i}` })),
        },
        {
          type: "actions",
          elements: [{ type: "button", action_id: "a", text: { type: "plain_text", text: "B".repeat(100) } }],
        },
      ],
      { maxJson: 1_000_000 },
    );
    const [h, s, c, a] = out;
    if (h?.type !== "header" || s?.type !== "section" || c?.type !== "context" || a?.type !== "actions") {
      throw new Error("block order changed");
    }
    expect(h.text.text).toHaveLength(150);
    expect(s.fields).toHaveLength(10);
    expect(s.fields?.every((f) => f.text.length === 2000)).toBe(true);
    expect(s.text?.text).toMatch(/a &amp;…$/);
    expect(s.text?.text.length).toBeLessThanOrEqual(3000);
    expect(c.elements).toHaveLength(10);
    const button = a.elements[0];
    expect(button?.type === "button" && button.text.text.length).toBe(75);
  });

  it("keeps at most 50 blocks, the last saying there is more", () => {
    const blocks = [header("List"), ...Array.from({ length: 80 }, (_, i) => section(`item ${i}`))];
    const out = fitBlocks(blocks);
    expect(out).toHaveLength(50);
    expect(allTexts(out[48])).toEqual(["item 47"]);
    expect(lastText(out)).toBe("…and more");
  });

  it("trims the longest texts first to meet the JSON budget", () => {
    const out = fitBlocks(
      [header("T"), section("s".repeat(2900)), section("x".repeat(2900)), section("short")],
      {
        maxJson: 3000,
      },
    );
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(3000);
    expect(out).toHaveLength(4);
    expect(lastText(out)).toBe("short");
  });

  it("drops trailing blocks when trimming is not enough", () => {
    const blocks = [header("T"), ...Array.from({ length: 40 }, (_, i) => section(`${i} `.repeat(50)))];
    const out = fitBlocks(blocks, { maxJson: 2000, moreText: "…and 12 more threads" });
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(2000);
    expect(allTexts(out[0])).toEqual(["T"]);
    expect(lastText(out)).toBe("…and 12 more threads");
  });
});

describe("fitList", () => {
  const item = (i: number, size = 10): KnownBlock[] => [section(`*Thread ${i}* ${"z".repeat(size)}`)];

  it("shows every item when they fit", () => {
    const r = fitList({
      head: [header("Threads")],
      items: [item(1), item(2)],
      tail: [section("page 1 of 1")],
    });
    expect(r).toMatchObject({ shown: 2, hidden: 0 });
    expect(r.blocks).toHaveLength(4);
    expect(lastText(r.blocks)).toBe("page 1 of 1");
  });

  it("stops at the block limit with a count of the rest, keeping the tail", () => {
    const items = Array.from({ length: 60 }, (_, i) => item(i));
    const r = fitList({ head: [header("Threads")], items, tail: [section("buttons")] });
    expect(r.blocks.length).toBeLessThanOrEqual(50);
    expect(r.shown + r.hidden).toBe(60);
    expect(r.shown).toBe(47); // header + 47 items + "more" + tail = 50
    expect(allTexts(r.blocks.at(-2))).toEqual([`…and ${r.hidden} more`]);
    expect(lastText(r.blocks)).toBe("buttons");
  });

  it("stops at the JSON budget, never splitting an item", () => {
    const items = Array.from({ length: 10 }, (_, i) => [...item(i, 1500), section(`details ${i}`)]);
    const r = fitList({ head: [header("Weekly")], items, more: (n) => `${n} more threads this week` });
    expect(JSON.stringify(r.blocks).length).toBeLessThanOrEqual(12_000);
    expect(r.blocks).toHaveLength(1 + 2 * r.shown + 1);
    expect(lastText(r.blocks)).toBe(`${r.hidden} more threads this week`);
    expect(r.shown).toBeGreaterThan(3);
  });
});
