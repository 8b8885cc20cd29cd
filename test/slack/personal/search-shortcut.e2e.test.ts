import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { allTexts } from "../render/walk.js";

/*
 * The search shortcuts end to end: Slack's own payload samples (test/fixtures/slack), signed
 * as Slack signs them, through the app to the emulator and the stand-in Slack.
 */

const GROUP = SEED.groups.support;
const fixture = (name: string) =>
  JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "..", "fixtures", "slack", name), "utf8"),
  ) as Record<string, unknown>;

/** Slack's message_action sample, with the ids and text of one message filled in. */
function messageShortcut(text: string, triggerId: string): Record<string, unknown> {
  const p = fixture("MessageShortcutPayload.json");
  const message = p.message as Record<string, unknown>;
  return {
    ...p,
    callback_id: "search_community",
    trigger_id: triggerId,
    message_ts: "1773403500.000100",
    response_url: "https://hooks.slack.com/app/T0STANDIN/1/abc",
    message: {
      ...message,
      type: "message",
      subtype: undefined,
      user: "U0DANA",
      text,
      ts: "1773403500.000100",
    },
    team: { id: "T0STANDIN", domain: "insight-relay-test" },
    enterprise: null,
    user: { id: "U0MAYA", name: "maya", team_id: "T0STANDIN" },
    channel: { id: TEST_CHANNEL, name: "community-insights" },
    token: "legacy-verification-token-unused",
    is_enterprise_install: false,
  };
}

type View = {
  id?: string;
  callback_id?: string;
  private_metadata?: string;
  blocks: unknown[];
  submit?: unknown;
};

describe("search from any message and from anywhere (shortcuts)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
    h.emulator.store.addThread(GROUP, {
      title: "Replicas fall minutes behind after upgrading to 0.15",
      summary: "Read replicas lag 3-5 minutes behind the primary since the upgrade.",
      sentiment: "negative",
      keywords: ["replication", "upgrade", "lag"],
      messageCount: 14,
      lastMessageDate: new Date().toISOString(),
    });
  });
  afterAll(async () => h?.stop());

  const callsOf = (method: string, trigger?: string) =>
    h.slack.calls.filter((c) => c.method === method && c.ok && (!trigger || c.args.trigger_id === trigger));

  it("opens a loading modal at once, searches the channel's groups with the message's words, then shows the threads", async () => {
    h.emulator.requests.clear();
    const text =
      "Our replicas lag behind after upgrading <@U0SAM>, anyone else? :eyes: <https://status.example.com|status page>";
    const started = performance.now();
    const res = await h.interact(messageShortcut(text, "trigger-msg-1"));
    const ackMs = performance.now() - started;
    expect(res.status).toBe(200);
    expect(ackMs).toBeLessThan(3_000);
    const opened = await h.slack.waitFor(() => callsOf("views.open", "trigger-msg-1")[0]);
    const words = "Our replicas lag behind after upgrading, anyone else? status page";
    expect(allTexts((opened.args.view as View).blocks)).toEqual([
      `:hourglass_flowing_sand: Searching the community for “${words}”…`,
    ]);
    const updated = await h.slack.waitFor(() =>
      callsOf("views.update").find(
        (c) => c.args.view_id !== undefined && JSON.stringify(c.args).includes("Replicas fall"),
      ),
    );
    // The message's words reached the service's search, in the group the channel follows.
    const searches = h.emulator.requests.all().filter((r) => r.path.endsWith("/search"));
    expect(searches.map((r) => [r.path, r.query.query])).toEqual([
      [`/api/v1/chatgroup/${GROUP}/search`, words],
    ]);
    const view = updated.args.view as View;
    const texts = allTexts(view.blocks);
    expect(texts.some((t) => /^\*\d+ threads?\* in Lumen DB Support match “Our replicas lag/.test(t))).toBe(
      true,
    );
    const hit = texts.find((t) => t.startsWith("*Replicas fall minutes behind after upgrading to 0.15*"));
    expect(hit).toMatch(
      /^\*Replicas fall minutes behind after upgrading to 0\.15\*\n:busts_in_silhouette: Lumen DB Support · :red_circle: Negative · 14 messages · last activity <!date\^\d+\^/,
    );
    expect(texts).toContain("View messages");
    expect(texts).toContain("Share in channel");
    expect(view.private_metadata).toBe(JSON.stringify({ c: TEST_CHANNEL }));
    // Loading first, then the update of that same view.
    expect(opened.at).toBeLessThanOrEqual(updated.at);
  });

  it("a message with no words gets a clear answer, and the form to type some; nothing is searched", async () => {
    h.emulator.requests.clear();
    await h.interact(messageShortcut(":eyes: <https://example.com/a.png>", "trigger-msg-2"));
    const opened = await h.slack.waitFor(() => callsOf("views.open", "trigger-msg-2")[0]);
    const texts = allTexts((opened.args.view as View).blocks);
    expect(texts[0]).toBe(
      "This message has no words to search for (only an emoji, a link or a file). Type what to look for instead:",
    );
    expect(texts).toContain("This channel's groups");
    expect(h.emulator.requests.all().filter((r) => r.path.endsWith("/search"))).toEqual([]);
  });

  it("the global shortcut opens the form: a search field and a group picker; searching updates the modal", async () => {
    const p = fixture("GlobalShortcutPayload.json");
    await h.interact({
      ...p,
      callback_id: "search_community_global",
      trigger_id: "trigger-global-1",
      team: { id: "T0STANDIN", domain: "insight-relay-test" },
      user: { id: "U0MAYA", username: "maya", team_id: "T0STANDIN" },
      is_enterprise_install: false,
      enterprise: null,
    });
    const opened = await h.slack.waitFor(() => callsOf("views.open", "trigger-global-1")[0]);
    const form = opened.args.view as View;
    expect(form.callback_id).toBe("insight.search.modal");
    expect(allTexts(form.blocks)).toEqual(
      expect.arrayContaining([
        "Search for",
        "In",
        "Every group this workspace follows",
        "Lumen DB Support",
        "Share results in",
      ]),
    );
    expect(allTexts(form.blocks)).not.toContain("This channel's groups");

    // Searching from the form: the answer updates the modal at once (loading), then with results.
    const viewId = String(callsOf("views.update")[0]?.args.view_id);
    h.emulator.requests.clear();
    const before = callsOf("views.update").length;
    const submitted = await h.interact({
      type: "view_submission",
      team: { id: "T0STANDIN", domain: "insight-relay-test" },
      user: { id: "U0MAYA", username: "maya", name: "maya", team_id: "T0STANDIN" },
      api_app_id: "A0STANDIN",
      token: "legacy-verification-token-unused",
      trigger_id: "trigger-submit-1",
      view: {
        id: viewId,
        type: "modal",
        callback_id: "insight.search.modal",
        private_metadata: "{}",
        state: {
          values: {
            query: { value: { type: "plain_text_input", value: "replicas upgrade" } },
            groups: { value: { type: "static_select", selected_option: { value: GROUP } } },
            share_to: { value: { type: "conversations_select", selected_conversation: null } },
          },
        },
      },
    });
    expect(submitted.status).toBe(200);
    const ack = JSON.parse(submitted.body) as { response_action: string; view: View };
    expect(ack.response_action).toBe("update");
    expect(allTexts(ack.view.blocks)).toEqual([
      ":hourglass_flowing_sand: Searching the community for “replicas upgrade”…",
    ]);
    const result = await h.slack.waitFor(() => callsOf("views.update")[before]);
    expect(result.args.view_id).toBe(viewId);
    expect(allTexts((result.args.view as View).blocks)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\*\d+ threads?\* in Lumen DB Support match “replicas upgrade”/),
      ]),
    );
    expect(
      h.emulator.requests
        .all()
        .filter((r) => r.path.endsWith("/search"))
        .map((r) => r.query.query),
    ).toEqual(["replicas upgrade"]);
  });

  it("empty words are refused inside the field, the modal stays", async () => {
    const submitted = await h.interact({
      type: "view_submission",
      team: { id: "T0STANDIN", domain: "insight-relay-test" },
      user: { id: "U0MAYA", username: "maya", name: "maya", team_id: "T0STANDIN" },
      api_app_id: "A0STANDIN",
      view: {
        id: "V0NONE",
        type: "modal",
        callback_id: "insight.search.modal",
        private_metadata: "{}",
        state: { values: { query: { value: { type: "plain_text_input", value: "  :) " } } } },
      },
    });
    expect(JSON.parse(submitted.body)).toEqual({
      response_action: "errors",
      errors: { query: "Type a few words to search for, like: replicas fall behind." },
    });
  });

  it("in the modal, Share in channel posts in the channel the message came from; View messages stacks a modal", async () => {
    const update = callsOf("views.update").find((c) => JSON.stringify(c.args).includes("Share in channel"));
    const blocks = (update?.args.view as View).blocks as {
      type: string;
      elements?: { action_id: string; value: string }[];
    }[];
    const actions = blocks.find((b) => b.type === "actions")?.elements ?? [];
    const share = actions.find((e) => e.action_id === "insight.search.share");
    const viewMessages = actions.find((e) => e.action_id === "insight.threads.messages");
    const fromModal = (action: { action_id: string; value: string }, trigger: string) => ({
      type: "block_actions",
      user: { id: "U0MAYA", username: "maya", name: "maya", team_id: "T0STANDIN" },
      api_app_id: "A0STANDIN",
      token: "legacy-verification-token-unused",
      container: { type: "view", view_id: String(update?.args.view_id) },
      trigger_id: trigger,
      team: { id: "T0STANDIN", domain: "insight-relay-test" },
      view: {
        id: String(update?.args.view_id),
        type: "modal",
        callback_id: "insight.search.modal",
        private_metadata: JSON.stringify({ c: TEST_CHANNEL }),
        state: { values: {} },
      },
      actions: [
        { type: "button", action_id: action.action_id, block_id: "b", value: action.value, action_ts: "1.2" },
      ],
    });
    const postsBefore = h.slack.posts().length;
    await h.interact(fromModal(share as { action_id: string; value: string }, "trigger-share-1"));
    const post = await h.slack.waitFor(() => h.slack.posts()[postsBefore]);
    expect(post.args.channel).toBe(TEST_CHANNEL);
    expect(String(post.args.text)).toContain("Replicas fall minutes behind after upgrading to 0.15");
    const told = await h.slack.waitFor(() => h.slack.ephemerals().find((e) => e.args.user === "U0MAYA"));
    expect(told.args.text).toBe(`:heavy_check_mark: Shared in <#${TEST_CHANNEL}>.`);

    await h.interact(fromModal(viewMessages as { action_id: string; value: string }, "trigger-view-1"));
    const pushed = await h.slack.waitFor(() => callsOf("views.push", "trigger-view-1")[0]);
    expect(JSON.stringify(pushed.args.view)).toContain("Replicas fall minutes behind");
  });
});
