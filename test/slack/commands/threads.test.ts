import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, threadsStateSchema } from "../../../src/slack/button-values.js";
import { THREADS_PAGE_SIZE } from "../../../src/slack/render/thread-list.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { expectNoLiveTokens } from "../render/walk.js";
import { ask, button, buttons, shown } from "./helpers.js";

const SUPPORT = SEED.groups.support;
const CONTRIB = SEED.groups.contributors;

describe("/insight threads", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SUPPORT);
    await h.subscribe(SUPPORT, "C0TWO");
    await h.subscribe(CONTRIB, "C0TWO");
  });
  afterAll(async () => h?.stop());

  const recent = (groupId: string, days: number) =>
    h.emulator.store
      .threads(groupId)
      .filter((t) => Date.parse(t.lastMessageDate) > Date.now() - days * 86_400_000);

  it("without arguments: the last 7 days of the channel's group, with title, sentiment, counts, dates, excerpt", async () => {
    const r = await ask(h, "threads");
    const text = shown(r);
    expect(text).toContain("Threads in Lumen DB Support");
    expect(text).toContain("the last 7 days");
    const expected = recent(SUPPORT, 7).filter((t) => !t.title.includes("<"));
    expect(expected.length).toBeGreaterThan(0);
    for (const t of expected.slice(0, 3)) {
      expect(text).toContain(t.title);
      expect(text).toContain(`${t.messageCount} messages`);
    }
    expect(text).toMatch(
      /First message <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\d{4}-\d\d-\d\d \d\d:\d\d UTC>/,
    );
    expect(text).toMatch(
      /Last activity <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\d{4}-\d\d-\d\d \d\d:\d\d UTC>/,
    );
    expect(text).toMatch(/:(red_circle|large_green_circle|white_circle|large_yellow_circle):/);
    const views = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.viewMessages);
    expect(views.length).toBe(Math.min(recent(SUPPORT, 7).length, THREADS_PAGE_SIZE));
    expectNoLiveTokens(r.blocks);
    expect(r.response_type).toBe("ephemeral");
  });

  it("range and group by case-insensitive name: page 1 of N with a Next button carrying the state", async () => {
    const r = await ask(h, "threads allTime lumen db support", { channel: "C0NONE" });
    const total = h.emulator.store.threads(SUPPORT).length;
    const pages = Math.ceil(total / THREADS_PAGE_SIZE);
    expect(shown(r)).toContain(`page 1 of ${pages} · ${total} threads`);
    expect(shown(r)).toContain("all time");
    const next = button(r.blocks, ACTIONS.threadsPage, "Next");
    expect(next.value.length).toBeLessThanOrEqual(2000);
    expect(decodeState(threadsStateSchema, next.value)).toEqual({
      r: "allTime",
      p: 2,
      i: 0,
      g: [[SUPPORT, "Lumen DB Support"]],
    });
    expect(buttons(r.blocks).some((b) => b.text.text.includes("Previous"))).toBe(false);
  });

  it("a range is case-insensitive and a group id works", async () => {
    const r = await ask(h, `threads LAST30DAYS ${CONTRIB}`);
    expect(shown(r)).toContain("Threads in Lumen DB Contributors");
    expect(shown(r)).toContain("the last 30 days");
  });

  it("a bad range lists the ranges people can type", async () => {
    const r = await ask(h, "threads last2Weeks");
    expect(r.text).toContain("`last2Weeks` is not a range I know");
    for (const range of ["7d", "30d", "3m", "6m", "all", "last 30 days"])
      expect(r.text).toContain(`\`${range}\``);
    expect(r.blocks).toBeUndefined();
  });

  it("an ambiguous name gets the choices", async () => {
    const r = await ask(h, "threads last7Days lumen db");
    expect(r.text).toContain("matches several chat groups");
    expect(r.text).toContain(`Lumen DB Support (\`${SUPPORT}\`)`);
    expect(r.text).toContain(`Lumen DB Contributors (\`${CONTRIB}\`)`);
  });

  it("an unknown name says so", async () => {
    const r = await ask(h, "threads no such group anywhere");
    expect(r.text).toContain('No chat group named "no such group anywhere"');
  });

  it("a channel that follows nothing is told how to name a group", async () => {
    const r = await ask(h, "threads", { channel: "C0NOTHING" });
    expect(r.text).toContain("This channel follows no chat group");
    expect(r.text).toContain("/insight threads [range] &lt;group&gt; [filters]");
  });

  it("a channel that follows two groups steps from one to the other", async () => {
    const r = await ask(h, "threads last30Days", { channel: "C0TWO" });
    expect(shown(r)).toContain("group 1 of 2 this channel follows");
    expect(shown(r)).toContain("Threads in Lumen DB Support");
    const toNext = button(r.blocks, `${ACTIONS.threadsPage}.next-group`);
    expect(toNext.text.text).toBe("Lumen DB Contributors ›");
    expect(decodeState(threadsStateSchema, toNext.value)).toMatchObject({ i: 1, p: 1, r: "last30Days" });
  });

  it("community text in titles and summaries is never live", async () => {
    const r = await ask(h, "threads allTime", { channel: "C0DIGESTS" });
    const injection = h.emulator.store.thread(SUPPORT, SEED.threads.injection);
    expect(injection?.title).toContain("<!channel>");
    expect(shown(r)).toContain("&lt;!channel&gt;");
    expectNoLiveTokens(r.blocks);
  });
});
