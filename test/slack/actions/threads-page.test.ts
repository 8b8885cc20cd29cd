import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { THREADS_PAGE_SIZE } from "../../../src/slack/render/thread-list.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { ask, button, buttons, click, shown } from "../commands/helpers.js";

const SUPPORT = SEED.groups.support;

describe("threads listing: Next / Previous / other group buttons", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SUPPORT, "C0TWO");
    await h.subscribe(SEED.groups.contributors, "C0TWO");
  });
  afterAll(async () => h?.stop());

  const titlesOfPage = async (page: number) =>
    (
      await h.services.insight.client.listThreads(SUPPORT, {
        range: "allTime",
        page,
        limit: THREADS_PAGE_SIZE,
        sort: "desc",
      })
    ).data.map((t) => t.title);

  it("Next replaces the message with page 2; Previous goes back to page 1", async () => {
    const first = await ask(h, `threads allTime ${SUPPORT}`);
    const pages = Math.ceil(h.emulator.store.threads(SUPPORT).length / THREADS_PAGE_SIZE);
    const next = await click(h, button(first.blocks, ACTIONS.threadsPage, "Next"));
    expect(next.status).toBe(200);
    const second = await next.reply();
    expect(second.replace_original).toBe(true);
    expect(shown(second)).toContain(`page 2 of ${pages}`);
    const page2 = (await titlesOfPage(2)).filter((t) => !t.includes("<") && !t.includes("&"));
    for (const t of page2) expect(shown(second)).toContain(t);
    expect(shown(second)).not.toContain((await titlesOfPage(1)).find((t) => !page2.includes(t)) ?? "\u0000");

    const back = await (await click(h, button(second.blocks, ACTIONS.threadsPage, "Previous"))).reply();
    expect(back.replace_original).toBe(true);
    expect(shown(back)).toContain(`page 1 of ${pages}`);
    expect(buttons(back.blocks).some((b) => b.text.text.includes("Previous"))).toBe(false);
  });

  it("the last page has no Next", async () => {
    const pages = Math.ceil(h.emulator.store.threads(SUPPORT).length / THREADS_PAGE_SIZE);
    const first = await ask(h, `threads allTime ${SUPPORT}`);
    const next = button(first.blocks, ACTIONS.threadsPage, "Next");
    const last = await (
      await click(h, { ...next, value: next.value.replace('"p":2', `"p":${pages}`) })
    ).reply();
    expect(shown(last)).toContain(`page ${pages} of ${pages}`);
    expect(buttons(last.blocks).some((b) => b.text.text.includes("Next"))).toBe(false);
    expect(buttons(last.blocks).some((b) => b.text.text.includes("Previous"))).toBe(true);
  });

  it("the next group's button shows that group, with a way back", async () => {
    const first = await ask(h, "threads last30Days", { channel: "C0TWO" });
    const other = await (
      await click(h, button(first.blocks, `${ACTIONS.threadsPage}.next-group`), { channel: "C0TWO" })
    ).reply();
    expect(other.replace_original).toBe(true);
    expect(shown(other)).toContain("Threads in Lumen DB Contributors");
    expect(shown(other)).toContain("group 2 of 2 this channel follows");
    expect(button(other.blocks, `${ACTIONS.threadsPage}.prev-group`).text.text).toBe("‹ Lumen DB Support");
  });

  it("a button whose value was tampered with or expired is refused in plain words", async () => {
    const r = await (
      await click(h, {
        action_id: `${ACTIONS.threadsPage}.next`,
        value: '{"r":"forever","p":2}',
        text: { text: "Next ›" },
      })
    ).reply();
    expect(r.replace_original).toBe(false);
    expect(r.text).toContain("This button no longer works");
  });
});
