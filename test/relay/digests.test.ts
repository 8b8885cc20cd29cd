import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { deliveriesOf } from "../../src/jobs/job-types.js";
import { digestsOf, messageText, OPS_CHANNEL, startHarness, type Harness } from "../helpers/app-harness.js";
import { waitUntil } from "../reconcile/support.js";

const GROUP = SEED.groups.support;

describe("relay: webhooks -> BullMQ -> Slack digests", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const postsFor = (threadId: string) => digestsOf(h, threadId);

  it("created -> one post with title, summary and sentiment; updated -> chat.update of the same ts", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Replica lag after upgrading to 4.2",
      summary: "Several members see replicas falling minutes behind since the 4.2 upgrade.",
      sentiment: "negative",
      keywords: ["replication", "upgrade"],
    });
    const first = await h.slack.waitFor(() => postsFor(thread.id)[0]);
    const text = messageText(first);
    expect(text).toContain("Replica lag after upgrading to 4.2");
    expect(text).toContain("Several members see replicas falling minutes behind");
    expect(text.toLowerCase()).toContain("negative");
    expect(text).toContain("replication");

    await h.emulator.enrichThread(
      GROUP,
      thread.id,
      { summary: "Fixed in 4.2.1: the lag came from a checkpoint setting.", sentiment: "positive" },
      "updated",
    );
    const edited = await h.slack.waitFor(() => postsFor(thread.id).find((m) => m.updates >= 1));
    expect(edited.ts).toBe(first.ts);
    expect(messageText(edited)).toContain("Fixed in 4.2.1");
    expect(messageText(edited).toLowerCase()).toContain("positive");
    expect(postsFor(thread.id)).toHaveLength(1);
    expect(
      h.slack.calls.filter(
        (c) => c.method === "chat.postMessage" && JSON.stringify(c.args).includes(thread.id),
      ),
    ).toHaveLength(1);
  });

  it("the same delivery twice -> one post", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Backup restore fails on ARM",
      sentiment: "neutral",
    });
    await h.slack.waitFor(() => postsFor(thread.id)[0]);
    const sent = h.emulator.webhooks.deliveries().filter((d) => d.webhookType === "chatthread-crud");
    expect(sent.length).toBeGreaterThan(0);
    const envelope = {
      webhookType: "chatthread-crud",
      actionType: "created",
      payload: {
        communityId: SEED.communities.primary,
        timestamp: "2026-11-20T10:00:00.000Z",
        threadId: thread.id,
        groupId: GROUP,
        groupName: "Lumen DB Support",
        title: "Backup restore fails on ARM",
        summary: "x",
        participantCount: 2,
        messageCount: 3,
      },
    };
    const a = await h.deliver(envelope);
    const b = await h.deliver({ ...envelope });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    // Both are acknowledged as recorded; the intake pump finds the second a repeat.
    expect(JSON.parse(b.body)).toMatchObject({ outcome: "recorded" });
    const duplicates = async () =>
      (await h.services.metrics.deliveries.get()).values.find(
        (v) => v.labels.type === "chatthread-crud" && v.labels.outcome === "duplicate",
      )?.value ?? 0;
    expect(await waitUntil(async () => (await duplicates()) >= 1)).toBe(true);
    // Older than the enrichment already shown: never overwrites it either.
    await new Promise((r) => setTimeout(r, 500));
    expect(postsFor(thread.id)).toHaveLength(1);
    expect(postsFor(thread.id)[0]?.updates).toBe(0);
  });

  it("a group nobody follows -> nothing posted and no job made, but the delivery is recorded", async () => {
    const before = h.slack.calls.filter((c) => c.method === "chat.postMessage").length;
    const dropped = async () => (await h.services.metrics.unfollowedDeliveries.get()).values[0]?.value ?? 0;
    const droppedBefore = await dropped();
    const { thread } = await h.emulator.createThread(SEED.groups.rides, { title: "Sunday route change" });
    // The intake pump records its receipt, then drops it: routing would find no channel.
    expect(await waitUntil(async () => (await dropped()) > droppedBefore, 5_000)).toBe(true);
    expect(await dropped()).toBe(droppedBefore + 1);
    const last = await h.workspace.health.lastDeliveries();
    expect(last["chatthread-crud"]).toBeDefined();
    const jobs = await h.services.queues.deliveries.getJobs(["waiting", "active", "completed", "failed"]);
    const queued = jobs.flatMap((j) => deliveriesOf(j.data));
    expect(queued.some((d) => d.event.payload.threadId === thread.id)).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.calls.filter((c) => c.method === "chat.postMessage").length).toBe(before);
    expect(h.slack.calls.some((c) => JSON.stringify(c.args).includes(thread.id))).toBe(false);
  });

  it("mention injection from community text is never live", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "<!channel> urgent <!here>",
      summary: "Ping <@U123ABC> and read <https://evil.example|the docs> or <!subteam^S1|@team>",
      sentiment: "mixed",
    });
    const m = await h.slack.waitFor(() => postsFor(thread.id)[0]);
    // The app's own date tokens (slackDate) are the only `<!…>` allowed.
    const t = messageText(m).replace(/<!date\^\d+\^[^|<>]*\|[^<>]*>/g, "");
    expect(t).not.toMatch(/<!channel>|<!here>|<@U123ABC>|<https:\/\/evil\.example\|/);
    expect(t).not.toMatch(/<[!@#]|<https?:/);
    expect(t).toContain("&lt;!channel&gt;");
  });

  it("Slack 429 -> waits for Retry-After and posts once", async () => {
    h.slack.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 1 });
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Rate limited thread",
      sentiment: "neutral",
    });
    const m = await h.slack.waitFor(() => postsFor(thread.id)[0], { timeoutMs: 10_000 });
    expect(messageText(m)).toContain("Rate limited thread");
    const attempts = h.slack.calls.filter(
      (c) => c.method === "chat.postMessage" && c.error === "ratelimited",
    );
    expect(attempts.length).toBe(1);
    expect(postsFor(thread.id)).toHaveLength(1);
  });

  const event = (threadId: string, timestamp: string, summary: string, actionType = "updated") => ({
    webhookType: "chatthread-crud",
    actionType,
    payload: {
      communityId: SEED.communities.primary,
      timestamp,
      threadId,
      groupId: GROUP,
      groupName: "Lumen DB Support",
      title: "Out-of-order thread",
      summary,
      participantCount: 3,
      messageCount: 7,
    },
  });

  it("out of order: an older re-enrichment never overwrites a newer one", async () => {
    const threadId = h.emulator.store.addThread(GROUP, {
      title: "Out-of-order thread",
      sentiment: "neutral",
    }).id;
    const newer = new Date(Date.now() + 60_000).toISOString();
    const older = new Date(Date.now() + 30_000).toISOString();
    expect((await h.deliver(event(threadId, newer, "The newest summary"))).status).toBe(200);
    const m = await h.slack.waitFor(() => postsFor(threadId)[0]);
    expect(messageText(m)).toContain("The newest summary");
    expect((await h.deliver(event(threadId, older, "An older summary"))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600));
    expect(postsFor(threadId)).toHaveLength(1);
    expect(postsFor(threadId)[0]?.updates).toBe(0);
    expect(messageText(postsFor(threadId)[0] ?? m)).not.toContain("An older summary");
  });

  it("a thread the listing does not show yet: posted without sentiment, edited once it appears", async () => {
    const threadId = "thread-not-listed-yet-0001";
    await h.deliver(
      event(threadId, new Date().toISOString(), "Enriched before the listing caught up", "created"),
    );
    const first = await h.slack.waitFor(() => postsFor(threadId)[0]);
    // Said quietly: no hourglass, no "pending" notification noise.
    expect(messageText(first).toLowerCase()).toContain("sentiment:* not rated yet");
    // The listing catches up (no webhook): the refresh job finds the sentiment and edits.
    h.emulator.store.addThread(GROUP, { id: threadId, title: "Out-of-order thread", sentiment: "negative" });
    const edited = await h.slack.waitFor(() => postsFor(threadId).find((x) => x.updates >= 1), {
      timeoutMs: 10_000,
    });
    expect(edited.ts).toBe(first.ts);
    expect(messageText(edited).toLowerCase()).toContain("negative");
    expect(postsFor(threadId)).toHaveLength(1);
  });

  it("a channel Slack refuses (channel_not_found): its subscription is paused and ops are told", async () => {
    const gone = "C0GONE0001";
    await h.subscribe(GROUP, gone);
    h.slack.fail.error("chat.postMessage", "channel_not_found", { channel: gone });
    const { thread } = await h.emulator.createThread(GROUP, { title: "Nobody home", sentiment: "neutral" });
    const notice = await h.slack.waitFor(
      () =>
        h.slack
          .messages(OPS_CHANNEL)
          .find((x) => x.text.includes(gone) && x.text.includes("channel_not_found")),
      { timeoutMs: 10_000 },
    );
    expect(notice.text).toContain("paused");
    expect((await h.workspace.subscriptions.get(gone, GROUP))?.paused?.code).toBe("channel_not_found");
    // The other channel still got its digest.
    await h.slack.waitFor(() => postsFor(thread.id)[0]);
    h.slack.fail.clear();
  });

  it("chatmessage-crud counts activity per group and day, once per message", async () => {
    const threadId = h.emulator.store.threads(GROUP)[0]?.id ?? "";
    const { message } = await h.emulator.postMessage(GROUP, threadId, { messageText: "hello" });
    const day = (message.messageDate ?? new Date().toISOString()).slice(0, 10);
    await h.slack.waitFor(async () => false, { timeoutMs: 1 }).catch(() => undefined);
    const counted = await waitUntil(
      async () => (await h.workspace.health.activity(GROUP, [day]))[day] === 1,
      5_000,
    );
    expect(counted).toBe(true);
  });
});
