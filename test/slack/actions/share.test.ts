import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, encodeShareState, shareStateSchema } from "../../../src/slack/button-values.js";
import { messageText, startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { expectNoLiveTokens } from "../render/walk.js";
import { ask, buttons, click } from "../commands/helpers.js";

describe("Share in channel", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SEED.groups.support);
  });
  afterAll(async () => h?.stop());

  const shares = async (query: string) =>
    buttons((await ask(h, `search ${query}`)).blocks).filter((b) => b.action_id === ACTIONS.share);

  it("a thread result is posted visibly in the channel with who shared it; the sharer is told", async () => {
    const thread = (await shares("retention per measurement")).find(
      (b) => decodeState(shareStateSchema, b.value)?.k === "thread",
    );
    expect(thread).toBeDefined();
    if (!thread) return;
    const before = h.slack.messages(TEST_CHANNEL).length;
    const res = await click(h, thread, { user: "U0BOB" });
    expect(res.status).toBe(200);
    const reply = await res.reply();
    expect(reply.replace_original).toBe(false);
    expect(reply.text).toBe(`:heavy_check_mark: Shared in <#${TEST_CHANNEL}>.`);
    const posted = h.slack.messages(TEST_CHANNEL).slice(before);
    expect(posted).toHaveLength(1);
    const text = messageText(posted[0] ?? { text: "" });
    expect(text).toContain("How to configure retention per measurement?");
    expect(text).toContain("Shared by <@U0BOB>");
    expect(text).toContain("Lumen DB Support");
    // Posted as the app, in the channel: not ephemeral, not a response_url reply.
    expect(h.slack.posts().at(-1)?.args.channel).toBe(TEST_CHANNEL);
  });

  it("a message result carries its author and text", async () => {
    const msg = (await shares("retention")).find(
      (b) => decodeState(shareStateSchema, b.value)?.k === "message",
    );
    expect(msg).toBeDefined();
    if (!msg) return;
    const state = decodeState(shareStateSchema, msg.value);
    await (await click(h, msg)).reply();
    const text = messageText(h.slack.messages(TEST_CHANNEL).at(-1) ?? { text: "" });
    expect(text).toContain(`*${state?.a ?? "?"}*`);
    expect(text).toContain("Shared by <@U0ALICE>");
  });

  it("community text in a share value is escaped when posted", async () => {
    const value = encodeShareState({
      k: "message",
      gn: "<!channel> group",
      tx: "Ping <!here> and <@U999> and <https://evil.example|docs>",
      a: "<@U123> Mallory",
      ti: "<!everyone>",
    });
    await (await click(h, { action_id: ACTIONS.share, value, text: { text: "Share in channel" } })).reply();
    const m = h.slack.messages(TEST_CHANNEL).at(-1);
    expect(messageText(m ?? { text: "" })).toContain("&lt;!here&gt;");
    // The only live token is the sharer's mention.
    const json = JSON.stringify(m?.blocks ?? []);
    expect(json.split("<@").length - 1).toBe(1);
    expect(json).toContain("Shared by <@U0ALICE>");
    expectNoLiveTokens(JSON.parse(json.replace("<@U0ALICE>", "")));
  });

  it("a channel the app is not in: plain words, nothing posted", async () => {
    const [first] = await shares("retention");
    expect(first).toBeDefined();
    if (!first) return;
    h.slack.fail.error("chat.postMessage", "not_in_channel", { channel: "C0OUTSIDE", count: 1 });
    const reply = await (await click(h, first, { channel: "C0OUTSIDE" })).reply();
    expect(reply.text).toContain("The app cannot post in this channel. Invite it first");
    expect(h.slack.messages("C0OUTSIDE")).toHaveLength(0);
  });
});
