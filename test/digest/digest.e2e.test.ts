import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { BATCH_EVENT_TYPE } from "../../src/digest/flush.js";
import { DIGEST_JOB_NAME, digestSchedulerId } from "../../src/digest/schedules.js";
import type { DigestEvery } from "../../src/domain/subscription.js";
import { ACTIONS } from "../../src/slack/action-ids.js";
import {
  messageText,
  spawnAppProcess,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../helpers/app-harness.js";
import { waitUntil } from "../reconcile/support.js";

const GROUP = SEED.groups.support;

/** Follows a group in digest mode straight through the store. */
async function followDigest(h: Harness, channel: string, every: DigestEvery, groupId = GROUP) {
  await h.workspace.subscriptions.put({
    channelId: channel,
    groupId,
    groupName: h.emulator.store.group(groupId)?.name ?? "group",
    communityId: h.emulator.store.group(groupId)?.community,
    filters: {},
    createdBy: "U0TEST",
    createdAt: new Date().toISOString(),
    delivery: { mode: "digest", every },
  });
}

const batchesIn = (h: Harness, channel: string) =>
  h.slack
    .messages(channel)
    .filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === BATCH_EVENT_TYPE);

const postsIn = (h: Harness, channel: string) =>
  h.slack.calls.filter(
    (c) => c.method === "chat.postMessage" && (c.args as { channel?: string }).channel === channel,
  );

const HOUR_MS = 3_600_000;
const hourTurnedSince = (startedMs: number) =>
  Math.floor(Date.now() / HOUR_MS) > Math.floor(startedMs / HOUR_MS);

const lastResponse = (h: Harness) => JSON.stringify(h.slack.responses.at(-1)?.body ?? "");

describe("digest mode end to end: pending set, one batched message, digest now", () => {
  let h: Harness;
  const CH = "C0DIGMODE";
  beforeAll(async () => {
    h = await startHarness();
    await followDigest(h, CH, "4h");
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("threads wait in the pending set (latest state wins), nothing per thread, then digest now posts one message", async () => {
    const { thread: a } = await h.emulator.createThread(GROUP, {
      title: "Checkout fails with 502 after deploy",
      sentiment: "negative",
      isQuestionLed: true,
      questionResponseStatus: "unanswered",
    });
    await h.emulator.createThread(GROUP, {
      title: "Dark mode request",
      sentiment: "positive",
      isQuestionLed: false,
    });
    await h.emulator.enrichThread(GROUP, a.id, { title: "Checkout 502: rollback planned" }, "updated");
    await h.emulator.enrichThread(
      GROUP,
      a.id,
      { title: "Checkout 502 fixed by rollback", sentiment: "neutral", questionResponseStatus: "answered" },
      "updated",
    );
    const settled = await waitUntil(async () => {
      const p = await h.workspace.digest.pending.list(CH);
      return p.length === 2 && p.some((e) => e.digest.title === "Checkout 502 fixed by rollback");
    }, 15_000);
    expect(settled).toBe(true);
    const pending = await h.workspace.digest.pending.list(CH);
    const pa = pending.find((e) => e.digest.threadId === a.id);
    // Created then re-enriched twice in one period: one entry, new, in its latest state.
    expect(pa).toMatchObject({
      isNew: true,
      digest: { sentiment: "neutral", questionResponseStatus: "answered" },
    });
    expect(postsIn(h, CH)).toHaveLength(0);

    // The period's job scheduler exists, aligned on the channel's zone (UTC by default).
    const schedulerOf = () => h.services.queues.digest.getJobScheduler(digestSchedulerId(CH, "4h"));
    expect(await waitUntil(async () => (await schedulerOf()) !== undefined, 5_000)).toBe(true);
    const scheduler = await schedulerOf();
    expect(scheduler?.pattern).toBe("0 1,5,9,13,17,21 * * *");
    expect(scheduler?.tz).toBe("UTC");

    const before = h.slack.responses.length;
    expect((await h.command("digest now", { channel: CH })).status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.length > before);
    expect(lastResponse(h)).toContain("Posting the pending digest now: 2 threads of *Lumen DB Support*");

    const m = await h.slack.waitFor(() => batchesIn(h, CH)[0], { timeoutMs: 10_000 });
    const text = messageText(m);
    expect(text).toContain("Digest: 2 threads");
    expect(text).toContain("Checkout 502 fixed by rollback");
    expect(text).not.toContain("Checkout fails with 502");
    expect(text.split("Checkout 502 fixed by rollback").length - 1).toBe(1);
    // Created and answered within the period: the channel never saw it open, so it stays new.
    expect(text).toContain("*New threads (2)*");
    expect(text).not.toContain("Answered in the chat");
    expect(text).toContain("Dark mode request");
    const buttons = JSON.stringify(m.blocks).match(new RegExp(`"action_id":"${ACTIONS.viewMessages}"`, "g"));
    expect(buttons).toHaveLength(2);

    expect(await waitUntil(async () => (await h.workspace.digest.pending.count(CH)) === 0, 5_000)).toBe(true);
    expect(batchesIn(h, CH)).toHaveLength(1);

    // Nothing pending any more: an ephemeral reply, no post.
    const before2 = h.slack.responses.length;
    await h.command("digest now", { channel: CH });
    await h.slack.waitFor(() => h.slack.responses.length > before2);
    expect(lastResponse(h)).toContain("Nothing is pending");
    await new Promise((r) => setTimeout(r, 300));
    expect(postsIn(h, CH)).toHaveLength(1);
  }, 60_000);

  it("a period with nothing matched posts nothing; bad input gets an example", async () => {
    const job = await h.services.queues.digest.add(DIGEST_JOB_NAME, {
      channelId: CH,
      trigger: "schedule",
      every: "4h",
      timeZone: "UTC",
    });
    expect(await waitUntil(async () => (await job.getState()) === "completed", 10_000)).toBe(true);
    expect((await h.services.queues.digest.getJob(job.id ?? ""))?.returnvalue).toEqual({ status: "empty" });
    expect(postsIn(h, CH)).toHaveLength(1);

    const before = h.slack.responses.length;
    await h.command("digest please", { channel: CH });
    await h.slack.waitFor(() => h.slack.responses.length > before);
    expect(lastResponse(h)).toContain('I understood \\"please\\"');
    expect(lastResponse(h)).toContain("`/insight digest now`");

    const before2 = h.slack.responses.length;
    await h.command("digest now", { channel: TEST_CHANNEL });
    await h.slack.waitFor(() => h.slack.responses.length > before2);
    expect(lastResponse(h)).toContain("No subscription of this channel is in digest mode");
  }, 30_000);
});

describe("digest mode: a period crossing a worker restart", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  const CH = "C0DIGKILL";
  beforeAll(async () => {
    // The web role here; the workers in child processes that can be killed.
    h = await startHarness({ env: { ROLE: "web" } });
    await followDigest(h, CH, "1h");
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await h?.stop();
  });

  it("a worker killed while posting the period's digest: the batch goes out once, later threads wait for the next one", async () => {
    const started = Date.now();
    const victim = await spawnAppProcess(h, "worker");
    children.push(victim);
    const { thread: a } = await h.emulator.createThread(GROUP, {
      title: "Index rebuild is slow",
      sentiment: "negative",
    });
    const { thread: b } = await h.emulator.createThread(GROUP, {
      title: "Docs typo on backups",
      sentiment: "neutral",
    });
    expect(await waitUntil(async () => (await h.workspace.digest.pending.count(CH)) === 2, 15_000)).toBe(
      true,
    );
    const schedulerOf = () => h.services.queues.digest.getJobScheduler(digestSchedulerId(CH, "1h"));
    expect(await waitUntil(async () => (await schedulerOf()) !== undefined, 5_000)).toBe(true);
    expect((await schedulerOf())?.pattern).toBe("0 * * * *");

    // The period ends (the job its scheduler makes), and the post hangs: the worker dies mid-post.
    h.slack.fail.hang("chat.postMessage", { count: 1 });
    await h.services.queues.digest.add(
      DIGEST_JOB_NAME,
      { channelId: CH, trigger: "schedule", every: "1h", timeZone: "UTC" },
      { jobId: "tick-crossing-restart" },
    );
    expect(
      await h.slack.waitFor(() => h.slack.calls.find((c) => c.method === "chat.postMessage"), {
        timeoutMs: 10_000,
      }),
    ).toBeTruthy();
    victim.kill("SIGKILL");

    // A thread arriving now is not in the batch already taken: it waits for the next period.
    const worker2 = await spawnAppProcess(h, "worker");
    children.push(worker2);
    const { thread: c } = await h.emulator.createThread(GROUP, {
      title: "New connector idea",
      sentiment: "positive",
    });

    const m = await h.slack.waitFor(() => batchesIn(h, CH)[0], { timeoutMs: 30_000 });
    const text = messageText(m);
    expect(text).toContain("Index rebuild is slow");
    expect(text).toContain("Docs typo on backups");
    expect(text).not.toContain("New connector idea");
    // The channel's real hourly period may end during the test: then the next batch takes c.
    const inBatches = (id: string) => batchesIn(h, CH).filter((x) => JSON.stringify(x.blocks).includes(id));
    expect(
      await waitUntil(async () => {
        const p = await h.workspace.digest.pending.list(CH);
        const waiting = p.length === 1 && p[0]?.digest.threadId === c.id;
        return waiting || (hourTurnedSince(started) && inBatches(c.id).length === 1);
      }, 15_000),
    ).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(inBatches(a.id)).toEqual([m]);
    expect(inBatches(b.id)).toEqual([m]);
    expect(batchesIn(h, CH)).toHaveLength(hourTurnedSince(started) ? inBatches(c.id).length + 1 : 1);
  }, 90_000);
});
