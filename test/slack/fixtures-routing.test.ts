import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { SEED } from "../../dev/emulator/index.js";
import { DIGEST_ACTIONS } from "../../src/slack/action-ids.js";
import { encodeThreadRef } from "../../src/slack/button-values.js";
import { SETTINGS_FIELDS, SETTINGS_INPUT } from "../../src/slack/render/settings-modal.js";
import { encodeSubscriptionRef, SETTINGS_MODAL_CALLBACK } from "../../src/slack/settings-ids.js";
import { startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { interactionBody, postSigned } from "../helpers/slack-signing.js";

/*
 * What Slack really sends (issue 35, item 10): every kind of request, taken from the public
 * samples of Slack's own SDK (test/fixtures/slack/README.md), posted signed to the running app.
 * The samples carry every field Slack may send (empty strings, numbers 123); only what routing
 * needs is set. Each must be parsed and acknowledged with 200, and either reach its listener
 * (which then does its work) or be one the app deliberately leaves alone, without an error.
 */

type Json = Record<string, unknown>;
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "slack");
const sample = (name: string): Json =>
  JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Json;

/** The sample with `patch` laid over it: objects merge, anything else replaces. */
function overlay(base: unknown, patch: unknown): unknown {
  const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObj(base) || !isObj(patch)) return patch;
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = overlay(base[k], v);
  return out;
}

/** `callback_id`s of the shortcuts the manifest declares (Slack sends only those). */
function declaredShortcuts(): string[] {
  const manifest = parseYaml(readFileSync(join(import.meta.dirname, "..", "..", "manifest.yml"), "utf8")) as {
    features?: { shortcuts?: { callback_id?: string }[] };
  };
  return (manifest.features?.shortcuts ?? []).flatMap((s) => (s.callback_id ? [s.callback_id] : []));
}

const CHANNEL = "C0SAMPLES";
const USER = "U0ALICE";
const TEAM = "T0STANDIN";

describe("Slack's own request samples, signed, against the running app", () => {
  let h: Harness;
  /** Error lines the app logged (a listener that threw, Bolt refusing a payload). */
  const errors = () => h.logLines.filter((l) => /"level":(50|60)/.test(l));

  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SEED.groups.support, CHANNEL);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const postEvent = (body: unknown) =>
    postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, JSON.stringify(body), "application/json");
  const postInteraction = (payload: unknown) =>
    postSigned(
      `${h.baseUrl}/slack/events`,
      TEST_SIGNING_SECRET,
      interactionBody(payload as object),
      "application/x-www-form-urlencoded",
    );
  /** An event of a sample, addressed to this workspace, with the fields routing reads. */
  const event = (name: string, patch: Record<string, unknown>) =>
    overlay(sample(name), { team_id: TEAM, type: "event_callback", event_id: `Ev${name}`, event: patch });

  it("a slash command (form fields as Slack sends them): acked, and the reply comes", async () => {
    const fields = overlay(sample("SlashCommandPayload"), {
      team_id: TEAM,
      channel_id: CHANNEL,
      user_id: USER,
      command: "/insight",
      text: "help",
      response_url: h.slack.responseUrl("sample-command"),
      trigger_id: "7012345678901.1234567890123.0123456789abcdef",
    }) as Record<string, unknown>;
    const body = new URLSearchParams(
      Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const res = await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body);
    expect(res.status).toBe(200);
    const reply = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === "sample-command"));
    expect(JSON.stringify(reply.body)).toContain(
      "*Insight Relay* brings your community's chat groups into Slack.",
    );
  });

  it("app_home_opened: acked, and the Home tab is published for that person", async () => {
    const res = await postEvent(
      event("AppHomeOpenedPayload", {
        type: "app_home_opened",
        user: "U0HOMESAMPLE",
        channel: "D0HOME",
        tab: "home",
      }),
    );
    expect(res.status).toBe(200);
    const home = await h.slack.waitFor(() => h.slack.views.published.get("U0HOMESAMPLE"), {
      timeoutMs: 10_000,
    });
    expect(JSON.stringify(home)).toContain("Health at a glance");
  });

  it("block_actions (a card's Messages button, with every field of the sample): acked, and the modal opens", async () => {
    const thread = h.emulator.store.threads(SEED.groups.support)[0];
    if (!thread) throw new Error("the seed has no thread");
    const base = sample("BlockActionPayload");
    const action = overlay((base.actions as unknown[])[0], {
      type: "button",
      action_id: DIGEST_ACTIONS.viewMessages,
      block_id: "digest.card",
      value: encodeThreadRef({ g: SEED.groups.support, t: thread.id, n: thread.title }),
    });
    const opened = h.slack.views.opened.length;
    const res = await postInteraction(
      overlay(base, {
        team: { id: TEAM },
        user: { id: USER },
        channel: { id: CHANNEL },
        container: { type: "message", channel_id: CHANNEL },
        trigger_id: "7012345678901.1234567890123.0123456789abcdef",
        response_url: h.slack.responseUrl("sample-action"),
        actions: [action],
      }),
    );
    expect(res.status).toBe(200);
    await h.slack.waitFor(() => h.slack.views.opened.length > opened, { timeoutMs: 10_000 });
  });

  it("view_submission (the settings modal's Save): acked, and the settings are saved", async () => {
    const res = await postInteraction(
      overlay(sample("ViewSubmissionPayload"), {
        team: { id: TEAM },
        user: { id: USER },
        view: {
          callback_id: SETTINGS_MODAL_CALLBACK,
          private_metadata: encodeSubscriptionRef({ c: CHANNEL, g: SEED.groups.support }),
          state: {
            values: {
              [SETTINGS_FIELDS.mode]: {
                [SETTINGS_INPUT]: { type: "static_select", selected_option: { value: "digest" } },
              },
              [SETTINGS_FIELDS.every]: {
                [SETTINGS_INPUT]: { type: "static_select", selected_option: { value: "4h" } },
              },
            },
          },
        },
      }),
    );
    expect(res.status).toBe(200);
    // Saved: the modal closes (an empty ack), and what is in force changed.
    expect(res.body).toBe("");
    expect((await h.workspace.subscriptions.get(CHANNEL, SEED.groups.support))?.delivery).toMatchObject({
      mode: "digest",
      every: "4h",
    });
  });

  it("a channel message (every field of the sample): acked and deliberately left alone", async () => {
    const before = errors().length;
    const res = await postEvent(
      event("MessagePayload", {
        type: "message",
        channel: CHANNEL,
        user: "U0MEMBER",
        text: "hello",
        ts: "1726133700.887259",
        channel_type: "channel",
      }),
    );
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(errors().slice(before)).toEqual([]);
  });

  it("app_mention from a person: acked, and the assistant answers in the mention's thread", async () => {
    const ts = "1726133700.000100";
    const res = await postEvent(
      event("AppMentionPayload", {
        type: "app_mention",
        channel: CHANNEL,
        user: USER,
        text: "<@U0BOT> what are people unhappy about this week?",
        ts,
        thread_ts: undefined,
        // The sample is every shape merged: a person's mention carries no bot_id and no subtype.
        bot_id: undefined,
        subtype: undefined,
      }),
    );
    expect(res.status).toBe(200);
    const answer = await h.slack.waitFor(() => h.slack.messages(CHANNEL).find((m) => m.thread_ts === ts), {
      timeoutMs: 15_000,
    });
    expect(answer.text).not.toBe("");
  });

  it("app_mention as the sample has it (a bot's, with bot_id and subtype): acked and left alone", async () => {
    const ts = "1726133700.000150";
    const before = errors().length;
    const res = await postEvent(event("AppMentionPayload", { type: "app_mention", channel: CHANNEL, ts }));
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.slack.messages(CHANNEL).some((m) => m.thread_ts === ts)).toBe(false);
    expect(errors().slice(before)).toEqual([]);
  });

  it("assistant_thread_started: acked, and the thread gets its suggested prompts", async () => {
    const res = await postEvent(event("AssistantThreadStartedPayload", { type: "assistant_thread_started" }));
    expect(res.status).toBe(200);
    const call = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === "assistant.threads.setSuggestedPrompts"),
    );
    expect(call.args).toMatchObject({ channel_id: "D111", thread_ts: "1726133698.626339" });
  });

  // Reactions on a card are being built by another helper (listeners: reaction_added marks the
  // thread handled or assigns it, reaction_removed reopens): until then, acked (Bolt acknowledges
  // every Events API request at once) and nothing fails.
  it.each([
    [
      "ReactionAddedPayload",
      {
        type: "reaction_added",
        user: USER,
        reaction: "white_check_mark",
        item: { type: "message", channel: CHANNEL, ts: "1726133700.000200" },
      },
    ],
    [
      "ReactionRemovedPayload",
      {
        type: "reaction_removed",
        user: USER,
        reaction: "white_check_mark",
        item: { type: "message", channel: CHANNEL, ts: "1726133700.000200" },
      },
    ],
  ] as const)("%s: parsed and acked", async (name, patch) => {
    const before = errors().length;
    const res = await postEvent(event(name, patch));
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(errors().slice(before)).toEqual([]);
  });

  // Shortcuts are sent only when the manifest declares them; Bolt acknowledges them only
  // through a listener, so each is checked once its callback is declared.
  const shortcuts = declaredShortcuts();
  it.runIf(shortcuts.includes("search_community"))(
    "message_action (callback search_community, the message shortcut): acked within Slack's 3 s",
    async () => {
      const started = performance.now();
      const res = await postInteraction(
        overlay(sample("MessageShortcutPayload"), {
          type: "message_action",
          callback_id: "search_community",
          team: { id: TEAM },
          user: { id: USER },
          channel: { id: CHANNEL },
          trigger_id: "7012345678901.1234567890123.0123456789abcdef",
          response_url: h.slack.responseUrl("sample-shortcut"),
          message: { text: "refund failed", ts: "1726133700.000300" },
        }),
      );
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(3_000);
    },
  );
  it.runIf(shortcuts.includes("search_community_global"))(
    "shortcut (callback search_community_global, the global shortcut): acked within Slack's 3 s",
    async () => {
      const started = performance.now();
      const res = await postInteraction(
        overlay(sample("GlobalShortcutPayload"), {
          callback_id: "search_community_global",
          team: { id: TEAM },
          user: { id: USER, team_id: TEAM },
          is_enterprise_install: false,
          enterprise: null,
          trigger_id: "7012345678901.1234567890123.0123456789abcdef",
        }),
      );
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(3_000);
    },
  );

  it("every sample is valid JSON of the kind it says", () => {
    expect(sample("SlashCommandPayload")).toHaveProperty("response_url");
    expect((sample("AppHomeOpenedPayload").event as Json).type).toBe("app_home_opened");
    expect((sample("AppMentionPayload").event as Json).type).toBe("app_mention");
    expect((sample("ReactionAddedPayload").event as Json).type).toBe("reaction_added");
    expect((sample("ReactionRemovedPayload").event as Json).type).toBe("reaction_removed");
    expect((sample("AssistantThreadStartedPayload").event as Json).type).toBe("assistant_thread_started");
    expect(sample("BlockActionPayload").type).toBe("block_actions");
    expect(sample("ViewSubmissionPayload").type).toBe("view_submission");
    expect(sample("MessageShortcutPayload").type).toBe("message_action");
    expect(sample("GlobalShortcutPayload").type).toBe("shortcut");
  });
});
