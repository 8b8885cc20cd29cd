import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { dmChannelOf } from "../../../dev/slack-standin/server.js";
import { DIGEST_ACTIONS } from "../../../src/slack/action-ids.js";
import {
  digestsOf,
  messageText,
  spawnAppProcess,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../../helpers/app-harness.js";

/*
 * Remind me later across a process restart (issue 36): the reminder is set by pressing the card's
 * menu (the web role, in this process), the worker process that would have sent it is stopped,
 * and two others start: the reminder fires once, from Redis alone.
 */

const GROUP = SEED.groups.support;
const MAYA = "U0MAYA";

describe("a reminder survives a restart and fires once", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: "web" } });
    await h.subscribe(GROUP);
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await h?.stop();
  });

  const startWorker = async () => {
    const child = await spawnAppProcess(h, "worker");
    children.push(child);
    return child;
  };
  const stopped = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });

  it("set from the card, its worker stopped, two others started: one DM", async () => {
    const first = await startWorker();
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Point-in-time restore skips a WAL segment",
      sentiment: "negative",
    });
    const card = await h.slack.waitFor(() => digestsOf(h, thread.id)[0], { timeoutMs: 15_000 });
    for (let n = 0; n < 100 && (await h.workspace.refs.get(TEST_CHANNEL, thread.id))?.ts !== card.ts; n++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const actions = (card.blocks as { type: string; block_id?: string }[]).find((b) => b.type === "actions");
    const res = await h.interact({
      type: "block_actions",
      user: { id: MAYA, username: "maya", name: "maya", team_id: "T0STANDIN" },
      api_app_id: "A0STANDIN",
      token: "legacy-verification-token-unused",
      container: { type: "message", message_ts: card.ts, channel_id: TEST_CHANNEL, is_ephemeral: false },
      trigger_id: "trigger-remind",
      team: { id: "T0STANDIN", domain: "insight-relay-test" },
      channel: { id: TEST_CHANNEL, name: "community-insights" },
      message: { type: "message", ts: card.ts, text: card.text },
      response_url: h.slack.responseUrl(),
      actions: [
        {
          type: "static_select",
          action_id: DIGEST_ACTIONS.remind,
          block_id: actions?.block_id,
          selected_option: { text: { type: "plain_text", text: "In 1 hour" }, value: "1h" },
          action_ts: "1.2",
        },
      ],
    });
    expect(res.status).toBe(200);
    await expect
      .poll(async () => (await h.workspace.reminders.list(MAYA)).length, { timeout: 5_000 })
      .toBe(1);
    const [reminder] = await h.workspace.reminders.list(MAYA);
    if (!reminder) throw new Error("no reminder");
    const job = await h.services.queues.slack.getJob(`remind|${MAYA}|${reminder.id}`);
    expect(await job?.getState()).toBe("delayed");

    // The process stops; the reminder lives on in Redis alone.
    await stopped(first);
    // An hour is long for a test: the job is brought forward to a few seconds from now.
    await job?.changeDelay(3_000);
    await Promise.all([startWorker(), startWorker()]);

    const dm = await h.slack.waitFor(() => h.slack.messages(dmChannelOf(MAYA))[0], { timeoutMs: 20_000 });
    expect(messageText(dm)).toMatch(
      /^:alarm_clock: Reminder: \*Point-in-time restore skips a WAL segment\* — Lumen DB Support\n:red_circle: Negative · /,
    );
    expect(dm.text).toContain("Not marked handled yet.");
    expect(dm.text).toContain(`/archives/${TEST_CHANNEL}/p${card.ts.replace(".", "")}|Open the card>`);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(h.slack.messages(dmChannelOf(MAYA))).toHaveLength(1);
    expect(await h.workspace.reminders.list(MAYA)).toEqual([]);
  }, 90_000);
});
