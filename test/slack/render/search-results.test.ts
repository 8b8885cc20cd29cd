import { describe, expect, it } from "vitest";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, shareStateSchema } from "../../../src/slack/button-values.js";
import {
  renderSearchResults,
  SEARCH_SHOWN_PER_KIND,
  type GroupedMessageHit,
  type GroupedThreadHit,
} from "../../../src/slack/render/search-results.js";
import { renderSharedResult, userMention } from "../../../src/slack/render/shared-result.js";
import { buttons } from "../commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "./walk.js";

const th = (i: number, over: Partial<GroupedThreadHit> = {}): GroupedThreadHit => ({
  kind: "thread",
  id: `thr_${i}`,
  title: `Refund failed after top-up (${i})`,
  summary: "Several users report refunds failing with error 402.",
  score: 0.9 - i / 100,
  raw: {},
  groupName: "Acme Support",
  groupId: "g1",
  ...over,
});
const mh = (i: number, over: Partial<GroupedMessageHit> = {}): GroupedMessageHit => ({
  kind: "message",
  id: `msg_${i}`,
  text: `My refund failed too (${i})`,
  threadId: "thr_1",
  threadTitle: "Refund failed after top-up",
  author: "Maya Chen",
  date: "2026-03-05T10:00:00.000Z",
  score: 0.6,
  raw: {},
  groupName: "Acme Support",
  groupId: "g1",
  ...over,
});
const groups = [{ id: "g1", name: "Acme Support" }];
const joined = (blocks: unknown[]) => allTexts(blocks).join("\n");

describe("renderSearchResults", () => {
  it("threads then messages, each with a Share button carrying the result", () => {
    const r = renderSearchResults({
      query: "refund failed",
      groups,
      threads: [th(1)],
      messages: [mh(1)],
      failures: [],
    });
    expect(r).toMatchSnapshot();
    const t = joined(r.blocks);
    expect(t).toContain("*Search:* “refund failed”");
    expect(t).toContain("In Acme Support · 1 thread, 1 message");
    expect(t.indexOf("*Threads (1)*")).toBeLessThan(t.indexOf("*Messages (1)*"));
    expect(t).toContain(
      "*Refund failed after top-up (1)*\nSeveral users report refunds failing with error 402.",
    );
    expect(t).toContain(
      "*Maya Chen* · <!date^1772704800^{date_short_pretty} at {time}|2026-03-05 10:00 UTC> · in _Refund failed after top-up_\nMy refund failed too (1)",
    );
    const shares = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.share);
    expect(shares.map((b) => decodeState(shareStateSchema, b.value))).toEqual([
      {
        k: "thread",
        gn: "Acme Support",
        ti: "Refund failed after top-up (1)",
        tx: "Several users report refunds failing with error 402.",
      },
      {
        k: "message",
        gn: "Acme Support",
        ti: "Refund failed after top-up",
        tx: "My refund failed too (1)",
        a: "Maya Chen",
        d: "2026-03-05T10:00:00.000Z",
      },
    ]);
    expect(r.text).toBe("Search results for “refund failed”: 1 thread, 1 message");
  });

  it("many huge hostile hits from several groups: best few shown, limits and value sizes held", () => {
    const big = '<!channel> "quoted" \\ ' + '<&>"'.repeat(3000);
    const r = renderSearchResults({
      query: `<!here> ${"q".repeat(500)}`,
      groups: [...groups, { id: "g2", name: "<@U1> Beta" }],
      threads: Array.from({ length: 20 }, (_, i) =>
        th(i, { title: big, summary: big, groupName: "<@U1> Beta" }),
      ),
      messages: Array.from({ length: 20 }, (_, i) => mh(i, { text: big, author: big, threadTitle: big })),
      failures: [{ name: "<!everyone> Gamma", reply: "The API key cannot read that." }],
    });
    expectNoLiveTokens(r.blocks);
    expectWithinLimits(r.blocks);
    const shares = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.share);
    expect(shares.length).toBeGreaterThan(0);
    expect(shares.length).toBeLessThanOrEqual(2 * SEARCH_SHOWN_PER_KIND);
    for (const b of shares) {
      expect(b.value.length).toBeLessThanOrEqual(2000);
      expect(decodeState(shareStateSchema, b.value)).toBeDefined();
    }
    const t = joined(r.blocks);
    expect(t).toContain(":warning: &lt;!everyone&gt; Gamma: The API key cannot read that.");
    expect(t).toContain("_&lt;@U1&gt; Beta_");
  });

  it("no hits", () => {
    const r = renderSearchResults({ query: "nothing", groups, threads: [], messages: [], failures: [] });
    expect(joined(r.blocks)).toContain("No thread or message matches “nothing”. Try other words.");
    expect(buttons(r.blocks)).toHaveLength(0);
  });
});

describe("renderSharedResult", () => {
  it("a shared thread and a shared message name who shared them", () => {
    const t = renderSharedResult(
      { k: "thread", gn: "Acme Support", ti: "Refund failed", tx: "Users report 402." },
      "U0BOB",
    );
    expect(t).toMatchSnapshot();
    expect(joined(t.blocks)).toContain(":mag: *Refund failed*\nUsers report 402.");
    expect(joined(t.blocks)).toContain(
      "Thread in *Acme Support* · Shared by <@U0BOB> from `/insight search`",
    );
    const m = renderSharedResult(
      {
        k: "message",
        gn: "Acme Support",
        ti: "Refund failed",
        tx: "Mine too",
        a: "Maya Chen",
        d: "2026-03-05T10:00:00.000Z",
      },
      "U0BOB",
    );
    expect(joined(m.blocks)).toContain(
      ":speech_balloon: *Maya Chen* · <!date^1772704800^{date_short_pretty} at {time}|2026-03-05 10:00 UTC>\nMine too",
    );
    expect(joined(m.blocks)).toContain("Message in *Acme Support* · in _Refund failed_ · Shared by <@U0BOB>");
    expect(m.text).toBe("Message from Maya Chen in Acme Support");
  });

  it("only a real user id becomes a mention", () => {
    expect(userMention("U0BOB")).toBe("<@U0BOB>");
    expect(userMention("W0ENT")).toBe("<@W0ENT>");
    expect(userMention("<!channel>")).toBe("someone");
    expect(userMention("U1|x> <!here")).toBe("someone");
  });
});

describe("renderSearchResults: what people read adds up", () => {
  it("shows no raw score, folds near-duplicate messages, and every count equals what is listed", () => {
    const same = "The refund button does nothing on Android after the 4.2 update, please help";
    const messages = [
      mh(1, { text: same }),
      mh(2, { text: `${same}!!` }),
      mh(3, { text: same.toUpperCase() }),
      mh(4, { text: "  the REFUND button does nothing on android after the 4.2 update, please help  " }),
      mh(5, { text: same }),
      ...[6, 7, 8, 9, 10, 11, 12].map((i) => mh(i)),
    ];
    const r = renderSearchResults({
      query: "refund",
      groups,
      threads: [th(1), th(2)],
      messages,
      failures: [],
    });
    const t = joined(r.blocks);
    expect(t).not.toMatch(/relevance|0\.\d\d/);
    // Five copies become one line that says so.
    expect(t.split(same).length - 1).toBe(1);
    expect(t).toContain("_4 more messages said the same_");
    // 8 distinct messages: 6 shown under a header that says 6, the rest counted in the tail.
    const shownMessages = buttons(r.blocks).filter((b) => b.value.includes('"k":"message"')).length;
    expect(shownMessages).toBe(6);
    expect(t).toContain("*Messages (6)*");
    expect(t).toContain("*Threads (2)*");
    // The header counts what the lists show; what is left out is counted once, at the end.
    expect(t).toContain("In Acme Support · 2 threads, 6 messages");
    expect(t).toContain("2 weaker results not shown: refine the words to narrow it down.");
    expect(r.text).toBe("Search results for “refund”: 2 threads, 6 messages");
  });

  it("every hit has View messages for its thread; threads with the same title fold into one", () => {
    const r = renderSearchResults({
      query: "refund",
      groups,
      threads: [
        th(1, { title: "Refund failed" }),
        th(2, { title: "refund  FAILED!" }),
        th(3, { title: "Refund failed" }),
        th(4, { title: "Login loop" }),
      ],
      messages: [mh(1), mh(2, { threadId: undefined, threadTitle: undefined })],
      failures: [],
    });
    const t = joined(r.blocks);
    expect(t).toContain("*Threads (2)*");
    expect(t).toContain(
      "*Refund failed*\nSeveral users report refunds failing with error 402.\n_2 more threads with the same title_",
    );
    expect(t.split("*Refund failed*").length - 1).toBe(1);
    expect(t).toContain("In Acme Support · 2 threads, 2 messages");
    const views = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.viewMessages);
    expect(views.map((b) => b.text.text)).toEqual(["View messages", "View messages", "View messages"]);
    expect(views.map((b) => JSON.parse(b.value) as unknown)).toEqual([
      { g: "g1", t: "thr_1", n: "Refund failed", p: 1 },
      { g: "g1", t: "thr_4", n: "Login loop", p: 1 },
      { g: "g1", t: "thr_1", n: "Refund failed after top-up", p: 1 },
    ]);
    // A message found without its thread can be shared, not opened.
    expect(buttons(r.blocks).filter((b) => b.action_id === ACTIONS.share)).toHaveLength(4);
  });
});
