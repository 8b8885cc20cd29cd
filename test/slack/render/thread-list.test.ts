import { describe, expect, it } from "vitest";
import type { Thread } from "../../../src/insight/schemas.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import {
  decodeState,
  threadRefSchema,
  threadsStateSchema,
  type ThreadsState,
} from "../../../src/slack/button-values.js";
import { renderThreadList, THREADS_PAGE_SIZE } from "../../../src/slack/render/thread-list.js";
import { buttons } from "../commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits, readerDateFallbacks } from "./walk.js";

const thread = (i: number, over: Partial<Thread> = {}): Thread => ({
  id: `thr_${String(i).padStart(4, "0")}`,
  title: `Card top-ups failing for EU users (${i})`,
  firstMessageDate: "2026-03-03T07:58:00.000Z",
  lastMessageDate: "2026-03-05T08:31:00.000Z",
  messageCount: 52,
  participantCount: 11,
  summary:
    "Users in the EU see error 402 on card top-ups since Monday. The payments team shipped a fix in 4.12.1.",
  sentiment: "negative",
  isQuestionLed: true,
  questionResponseStatus: "answered",
  ...over,
});
const state = (o: Partial<ThreadsState> = {}): ThreadsState => ({
  r: "last7Days",
  p: 1,
  i: 0,
  g: [["grp_support", "Acme Wallet – Support"]],
  ...o,
});
const page = (threads: Thread[], p = 1, totalPages = 3) => ({
  ok: true as const,
  threads,
  pagination: { page: p, limit: THREADS_PAGE_SIZE, total: 20, totalPages },
});
const joined = (blocks: unknown[]) => allTexts(blocks).join("\n");

describe("renderThreadList", () => {
  it("renders one page: title, sentiment, counts, question status, excerpt, dates, buttons", () => {
    const r = renderThreadList({
      state: state(),
      result: page([thread(1), thread(2, { sentiment: "positive", isQuestionLed: false })]),
    });
    expect(r).toMatchSnapshot();
    const text = joined(r.blocks);
    expect(text).toContain("*Threads in Acme Wallet – Support* — the last 7 days");
    expect(text).toContain("page 1 of 3 · 20 threads");
    expect(text).toContain("*Card top-ups failing for EU users (1)*");
    expect(text).toContain(
      ":red_circle: Negative · 52 messages · 11 participants · :white_check_mark: question answered",
    );
    expect(text).toContain(":large_green_circle: Positive · 52 messages · 11 participants\n");
    expect(text).toContain("Users in the EU see error 402");
    expect(text).toContain(
      "First message <!date^1772524680^{date_short_pretty} at {time}|2026-03-03 07:58 UTC> · Last activity <!date^1772699460^{date_short_pretty} at {time}|2026-03-05 08:31 UTC>",
    );
    const views = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.viewMessages);
    expect(views.map((b) => decodeState(threadRefSchema, b.value))).toEqual([
      { g: "grp_support", t: "thr_0001", n: "Card top-ups failing for EU users (1)", p: 1 },
      { g: "grp_support", t: "thr_0002", n: "Card top-ups failing for EU users (2)", p: 1 },
    ]);
    const nav = buttons(r.blocks).filter((b) => b.action_id.startsWith(ACTIONS.threadsPage));
    expect(nav.map((b) => b.text.text)).toEqual(["Next ›"]);
    expect(decodeState(threadsStateSchema, nav[0]?.value)).toMatchObject({ p: 2 });
    expect(r.text).toBe("Threads in Acme Wallet – Support (the last 7 days), page 1 of 3");
    expectWithinLimits(r.blocks);
  });

  it("a middle page of the second of three groups has every navigation button", () => {
    const s = state({
      p: 2,
      i: 1,
      g: [
        ["a", "Alpha"],
        ["b", "Beta"],
        ["c", "Gamma"],
      ],
    });
    const r = renderThreadList({ state: s, result: page([thread(9)], 2, 3) });
    const nav = buttons(r.blocks).filter((b) => b.action_id.startsWith(ACTIONS.threadsPage));
    expect(nav.map((b) => b.text.text)).toEqual(["‹ Previous", "Next ›", "‹ Alpha", "Gamma ›"]);
    expect(new Set(nav.map((b) => b.action_id)).size).toBe(4);
    expect(nav.map((b) => decodeState(threadsStateSchema, b.value))).toEqual([
      { ...s, p: 1 },
      { ...s, p: 3 },
      { ...s, i: 0, p: 1 },
      { ...s, i: 2, p: 1 },
    ]);
    expect(joined(r.blocks)).toContain("group 2 of 3 this channel follows");
  });

  it("hostile and oversized community text: escaped, every limit held, all 8 threads kept", () => {
    const threads = Array.from({ length: THREADS_PAGE_SIZE }, (_, i) =>
      thread(i, {
        title: `<!channel> ${"T&".repeat(200)}`,
        summary: `<@U123> <https://evil.example|docs> @here ${"&<>".repeat(2000)}`,
        sentiment: "<!here>",
        questionResponseStatus: "<!everyone>",
      }),
    );
    const r = renderThreadList({ state: state(), result: page(threads) });
    expectNoLiveTokens(r.blocks);
    expectWithinLimits(r.blocks);
    expect(buttons(r.blocks).filter((b) => b.action_id === ACTIONS.viewMessages)).toHaveLength(
      THREADS_PAGE_SIZE,
    );
    for (const b of buttons(r.blocks)) expect(b.value.length).toBeLessThanOrEqual(2000);
  });

  it("empty, failed and pagination-less pages", () => {
    const empty = renderThreadList({ state: state(), result: page([], 1, 0) });
    expect(joined(empty.blocks)).toContain(
      "No threads in the last 7 days. Try a longer range, e.g. `/insight threads 30d Acme Wallet – Support`.",
    );
    expect(buttons(empty.blocks)).toHaveLength(0);
    const failed = renderThreadList({
      state: state(),
      result: { ok: false, error: "The API key cannot read that." },
    });
    expect(joined(failed.blocks)).toContain(":warning: The API key cannot read that.");
    const full = Array.from({ length: THREADS_PAGE_SIZE }, (_, i) => thread(i));
    const noPagination = renderThreadList({
      state: state(),
      result: { ok: true, threads: full, pagination: undefined },
    });
    expect(joined(noPagination.blocks)).toContain("page 1");
    expect(buttons(noPagination.blocks).some((b) => b.text.text === "Next ›")).toBe(true);
  });

  it("shows first message and last activity as Slack date tokens with a readable UTC fallback", () => {
    const r = renderThreadList({ state: state(), result: page([thread(1)]) });
    const text = joined(r.blocks);
    // Each reader sees their own zone; the fallback says which zone it is in.
    expect(readerDateFallbacks(text)).toEqual(["2026-03-03 07:58 UTC", "2026-03-05 08:31 UTC"]);
    expect(text).toContain("First message <!date^1772524680^{date_short_pretty} at {time}|");
  });
});
