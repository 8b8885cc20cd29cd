import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import {
  digestsOf,
  messageText,
  startHarness,
  TEST_CHANNEL,
  TEST_SIGNING_SECRET,
  type Harness,
} from "../../helpers/app-harness.js";
import { postSigned } from "../../helpers/slack-signing.js";

/*
 * Triage by reaction end to end: a real card (webhook → emulator listing → card in the stand-in),
 * then Slack's own reaction_added / reaction_removed samples, signed, against it and against a
 * message that is not a card.
 */

const GROUP = SEED.groups.support;
const fixture = (name: string) =>
  JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "..", "fixtures", "slack", name), "utf8"),
  ) as Record<string, unknown>;

let eventSeq = 0;
/** Slack's sample of the event, with one person's reaction on one message filled in. */
async function react(
  h: Harness,
  type: "added" | "removed",
  o: { user: string; reaction: string; channel: string; ts: string; itemUser?: string },
) {
  h.slack.react({
    channel: o.channel,
    ts: o.ts,
    user: o.user,
    name: o.reaction,
    removed: type === "removed",
  });
  const sample = fixture(type === "added" ? "ReactionAddedPayload.json" : "ReactionRemovedPayload.json");
  const event = sample.event as Record<string, unknown>;
  const body = {
    ...sample,
    token: "legacy-verification-token-unused",
    team_id: "T0STANDIN",
    enterprise_id: undefined,
    api_app_id: "A0STANDIN",
    event: {
      ...event,
      user: o.user,
      reaction: o.reaction,
      item: { type: "message", channel: o.channel, ts: o.ts },
      item_user: o.itemUser ?? "U0BOT",
      event_ts: `${Math.floor(Date.now() / 1000)}.000${++eventSeq}`,
    },
    event_id: `Ev0REACT${eventSeq}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: "T0STANDIN", user_id: "U0BOT", is_bot: true, is_enterprise_install: false }],
  };
  const res = await postSigned(
    `${h.baseUrl}/slack/events`,
    TEST_SIGNING_SECRET,
    JSON.stringify(body),
    "application/json",
  );
  expect(res.status).toBe(200);
}

describe("triage by reaction on a card", () => {
  let h: Harness;
  let threadId: string;
  let cardTs: string;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Backups to S3 twice as slow since 0.15",
      summary: "Nightly backups take twice as long since the upgrade.",
      sentiment: "negative",
    });
    threadId = thread.id;
    const card = await h.slack.waitFor(() => digestsOf(h, threadId)[0], { timeoutMs: 15_000 });
    cardTs = card.ts;
    // The card's ref is recorded right after the post: reactions find the card through it.
    for (let n = 0; n < 100 && (await h.workspace.refs.get(TEST_CHANNEL, threadId))?.ts !== cardTs; n++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => h?.stop());

  const card = () => digestsOf(h, threadId)[0];
  const waitForCard = (pred: (text: string) => boolean) =>
    h.slack.waitFor(
      () => {
        const c = card();
        return c && pred(messageText(c)) ? c : undefined;
      },
      { timeoutMs: 10_000 },
    );

  it("✅ marks the thread handled by the person who reacted: the card says so, as with the button", async () => {
    await react(h, "added", {
      user: "U0MAYA",
      reaction: "white_check_mark",
      channel: TEST_CHANNEL,
      ts: cardTs,
    });
    const edited = await waitForCard((t) => t.includes("Handled by <@U0MAYA>"));
    expect(messageText(edited)).toMatch(/:ballot_box_with_check: Handled by <@U0MAYA> <!date\^\d+\^/);
    expect((await h.workspace.triage.get(threadId)).handled?.by).toBe("U0MAYA");
    // The button now offers Reopen, as after a press.
    expect(JSON.stringify(edited.blocks)).toContain('"value":"reopen"');
  });

  it("removing someone else's ✅ changes nothing; removing one's own reopens", async () => {
    const updates = card()?.updates ?? 0;
    await react(h, "removed", {
      user: "U0SAM",
      reaction: "heavy_check_mark",
      channel: TEST_CHANNEL,
      ts: cardTs,
    });
    await new Promise((r) => setTimeout(r, 400));
    expect((await h.workspace.triage.get(threadId)).handled?.by).toBe("U0MAYA");
    expect(card()?.updates).toBe(updates);
    await react(h, "removed", {
      user: "U0MAYA",
      reaction: "white_check_mark",
      channel: TEST_CHANNEL,
      ts: cardTs,
    });
    await waitForCard((t) => !t.includes("Handled by"));
    expect((await h.workspace.triage.get(threadId)).handled).toBeUndefined();
  });

  it("👀 assigns the thread to the person who reacted", async () => {
    await react(h, "added", { user: "U0SAM", reaction: "eyes", channel: TEST_CHANNEL, ts: cardTs });
    await waitForCard((t) => t.includes(":bust_in_silhouette: Assigned to <@U0SAM>"));
    expect((await h.workspace.triage.get(threadId)).assignee?.user).toBe("U0SAM");
  });

  it("a reaction on a message that is not a card is ignored", async () => {
    // The app's own subscription notice in the channel, and a person's message Slack knows nothing of.
    const notice = h.slack.messages(TEST_CHANNEL).find((m) => !digestsOf(h, threadId).includes(m));
    expect(notice).toBeDefined();
    const before = JSON.stringify(await h.workspace.triage.get(threadId));
    const updates = card()?.updates ?? 0;
    const history = h.slack.calls.filter((c) => c.method === "conversations.history").length;
    await react(h, "added", {
      user: "U0MAYA",
      reaction: "white_check_mark",
      channel: TEST_CHANNEL,
      ts: notice?.ts ?? "",
    });
    await react(h, "added", {
      user: "U0MAYA",
      reaction: "white_check_mark",
      channel: TEST_CHANNEL,
      ts: "1700000000.000001",
      itemUser: "U0DANA",
    });
    await h.slack.waitFor(
      () => h.slack.calls.filter((c) => c.method === "conversations.history").length > history,
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(JSON.stringify(await h.workspace.triage.get(threadId))).toBe(before);
    expect(card()?.updates).toBe(updates);
    // The person's message was skipped without asking Slack (its author is not the app).
    expect(h.slack.calls.filter((c) => c.method === "conversations.history").length).toBe(history + 1);
  });
});
