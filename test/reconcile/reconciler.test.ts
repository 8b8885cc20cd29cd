import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BaselineStore } from "../../src/reconcile/baseline-store.js";
import type { RuntimeTuning } from "../../src/compose/build-services.js";
import { reconcilerDeps } from "../../src/compose/narrow-deps.js";
import { readReconcileStatus } from "../../src/reconcile/reconcile-status.js";
import { Reconciler, type ReconcilerOptions } from "../../src/reconcile/reconciler.js";
import { silenceIncidentId } from "../../src/ops/incidents.js";
import { SEED } from "../../dev/emulator/index.js";
import {
  messageText,
  startHarness,
  TEST_CHANNEL,
  TEST_WEBHOOK_SECRET,
  type Harness,
} from "../helpers/app-harness.js";
import {
  digestsOf,
  follow,
  freshGroup,
  opsMessages,
  queuesIdle,
  threadDelivery,
  waitForStartupRun,
  waitUntil,
} from "./support.js";

/** The test groups live in the primary community: its webhook's incident. */
const SILENCE = silenceIncidentId(SEED.communities.primary);

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("reconciler", () => {
  let h: Harness;
  let group: string;
  const reconciler = (o: ReconcilerOptions = {}) =>
    new Reconciler(reconcilerDeps(h.workspace), { settleMs: 0, ...o });

  /** Webhooks silent: nothing is registered upstream, as after the service disabled it. */
  const start = async (o: { webhook?: boolean; tuning?: RuntimeTuning } = {}) => {
    h = await startHarness({
      registerWebhook: o.webhook ?? false,
      ...(o.tuning ? { tuning: o.tuning } : {}),
    });
    await waitForStartupRun(h);
    group = freshGroup(h);
    // Old threads from before anyone followed the group.
    for (let i = 0; i < 30; i++) {
      h.emulator.store.addThread(group, {
        title: `Old thread ${i}`,
        lastMessageDate: new Date(Date.now() - (i + 1) * 3_600_000).toISOString(),
      });
    }
    await follow(h, group);
  };
  afterEach(async () => {
    await h?.stop();
  });

  describe("with webhooks silent", () => {
    beforeEach(async () => {
      await start();
    });

    it("takes the first reading as the baseline: nothing posted for the threads already there", async () => {
      const r = await reconciler().run();
      expect(r.groups).toEqual([
        expect.objectContaining({ groupId: group, outcome: "baseline", listed: 30, sent: 0 }),
      ]);
      await queuesIdle(h);
      expect(h.slack.messages(TEST_CHANNEL)).toHaveLength(0);
      expect(await h.workspace.ops.open()).not.toHaveProperty(SILENCE);
      const again = await reconciler().run();
      expect(again.groups[0]).toMatchObject({ outcome: "read", sent: 0, deferred: 0 });
    });

    it("posts a thread enriched without a delivery once, edits it on re-enrichment, and alerts once", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, {
        title: "Sync stalls after failover",
        summary: "Replicas stop syncing after a failover.",
        sentiment: "negative",
        keywords: ["failover"],
      });
      const r = await reconciler().run();
      expect(r).toMatchObject({ sent: 1, silentSends: 1, incident: "opened" });
      const posted = await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      expect(messageText(posted)).toContain("Sync stalls after failover");
      expect(messageText(posted).toLowerCase()).toContain("negative");

      // The alert: one message, in the ops channel, saying what to do, with no secret in it.
      const alert = await h.slack.waitFor(() => opsMessages(h)[0]);
      expect(alert.text).toContain("look stopped");
      expect(alert.text).toContain("re-enable");
      expect(alert.text).toContain("Reconcile test group");
      expect(alert.text).not.toContain(TEST_WEBHOOK_SECRET);
      const open = await h.workspace.ops.open();
      expect(open[SILENCE]?.text).toBe(alert.text);
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).incidents).toEqual([
        expect.objectContaining({
          communityId: SEED.communities.primary,
          sent: 1,
          lastDeliveryAt: undefined,
        }),
      ]);

      // Nothing new: nothing sent, no second alert.
      expect(await reconciler().run()).toMatchObject({ sent: 0, incident: undefined });

      await tick();
      await h.emulator.enrichThread(group, thread.id, {
        summary: "Fixed by raising the sync timeout.",
        sentiment: "positive",
      });
      expect(await reconciler().run()).toMatchObject({ sent: 1, silentSends: 1, incident: undefined });
      const edited = await h.slack.waitFor(() => digestsOf(h, thread.id).find((m) => m.updates >= 1));
      expect(edited.ts).toBe(posted.ts);
      expect(messageText(edited)).toContain("Fixed by raising the sync timeout.");
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)).toHaveLength(1);
      expect(opsMessages(h)).toHaveLength(1);
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).incidents[0]?.sent).toBe(2);
    });

    it("judges each community by its own webhook: one community's deliveries do not hide another's silence", async () => {
      const other = h.emulator.store.addGroup(SEED.communities.secondary, {
        name: "Other community group",
      })._id;
      await follow(h, other);
      await reconciler().run();
      await tick();
      // The primary community's webhook works: its new thread is delivered.
      const { thread: delivered } = await h.emulator.createThread(group, { title: "Delivered here" });
      await h.deliver(threadDelivery(group, delivered.id, new Date().toISOString()));
      await h.slack.waitFor(() => digestsOf(h, delivered.id)[0]);
      // The other community's webhook is off: its new thread arrives by no delivery.
      const { thread: missed } = await h.emulator.createThread(other, { title: "Missed over there" });

      const r = await reconciler().run();
      expect(r).toMatchObject({ sent: 1, silentSends: 1, incident: "opened" });
      await h.slack.waitFor(() => digestsOf(h, missed.id)[0]);
      const open = await h.workspace.ops.open();
      const otherIncident = silenceIncidentId(SEED.communities.secondary);
      expect(Object.keys(open).filter((id) => id.startsWith("webhook-silence"))).toEqual([otherIncident]);
      const alert = await h.slack.waitFor(() => opsMessages(h)[0]);
      expect(alert.text).toContain(`for community \`${SEED.communities.secondary}\``);
      expect(alert.text).toContain("Other community group");
      expect(alert.text).not.toContain("Reconcile test group");
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).incidents).toEqual([
        expect.objectContaining({ communityId: SEED.communities.secondary, sent: 1 }),
      ]);

      // The primary community delivering again changes nothing for the other one.
      const { thread: again } = await h.emulator.createThread(group, { title: "Delivered here again" });
      await h.deliver(threadDelivery(group, again.id, new Date().toISOString()));
      await h.slack.waitFor(() => digestsOf(h, again.id)[0]);
      expect((await reconciler().run()).incident).toBeUndefined();
      expect(await h.workspace.ops.open()).toHaveProperty(otherIncident);

      // Its webhook is re-enabled: a delivery from that community closes its incident.
      await tick();
      const { thread: back } = await h.emulator.createThread(other, { title: "Back over there" });
      await h.deliver(
        threadDelivery(other, back.id, new Date().toISOString(), { communityId: SEED.communities.secondary }),
      );
      await h.slack.waitFor(() => digestsOf(h, back.id)[0]);
      expect(await reconciler().run()).toMatchObject({ incident: "closed", sent: 0 });
      expect(await h.workspace.ops.open()).not.toHaveProperty(otherIncident);
      const notes = await h.slack.waitFor(() => (opsMessages(h).length === 2 ? opsMessages(h) : undefined));
      expect(notes[1]?.text).toContain(`for community \`${SEED.communities.secondary}\` resumed`);
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).incidents).toEqual([]);
      await queuesIdle(h);
      for (const t of [delivered, missed, again, back]) expect(digestsOf(h, t.id)).toHaveLength(1);
    });

    it("never edits a thread whose content is already shown", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, { title: "Shown once", sentiment: "neutral" });
      await reconciler().run();
      await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      // New messages move counts and dates, not the enrichment: no edit.
      await h.emulator.postMessage(group, thread.id, { messageText: "me too" });
      for (let i = 0; i < 3; i++) expect((await reconciler().run()).sent).toBe(0);
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)).toEqual([expect.objectContaining({ updates: 0 })]);
    });

    it("leaves alone an old thread that shifts into the newest page without new activity", async () => {
      await reconciler().run();
      await tick();
      // Quiet for a year; it shows up only because the page has room.
      const old = h.emulator.store.addThread(group, {
        title: "Year-old thread",
        lastMessageDate: new Date(Date.now() - 365 * 86_400_000).toISOString(),
      });
      expect((await reconciler().run()).sent).toBe(0);
      await queuesIdle(h);
      expect(digestsOf(h, old.id)).toHaveLength(0);
    });

    it("forgets a group nobody follows; following it again starts from a new baseline", async () => {
      await reconciler().run();
      const store = new BaselineStore(h.services.redis, h.services.keys);
      expect(await store.groups()).toEqual([group]);
      await h.workspace.subscriptions.remove(TEST_CHANNEL, group);
      await reconciler().run();
      expect(await store.groups()).toEqual([]);
      await tick();
      h.emulator.store.addThread(group, { title: "Created while nobody followed" });
      await follow(h, group);
      const r = await reconciler().run();
      expect(r.groups[0]?.outcome).toBe("baseline");
      await queuesIdle(h);
      expect(h.slack.messages(TEST_CHANNEL)).toHaveLength(0);
    });

    it("keeps the baseline when the API fails and catches up on the next run", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, { title: "Made during an API outage" });
      h.emulator.faults.set({ serverError: { count: 1_000, status: 503 } });
      const failed = await reconciler().run();
      expect(failed.groups[0]).toMatchObject({ outcome: "failed", error: expect.any(String) as string });
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).groupsFailed).toBe(1);
      h.emulator.faults.clear();
      expect((await reconciler().run()).sent).toBe(1);
      await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
    });

    it("two runs at once: one reads, the other steps aside", async () => {
      await reconciler().run();
      const runs = await Promise.all([reconciler().run(), reconciler().run()]);
      expect(runs.map((r) => r.ran).sort()).toEqual([false, true]);
    });

    it("a delivery arriving while it waits for in-flight webhooks means no silence: no alert, no send", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, {
        title: "Delivered late",
        sentiment: "neutral",
      });
      const late = threadDelivery(group, thread.id, new Date().toISOString(), { title: "Delivered late" });
      const r = await reconciler({
        settleMs: 10,
        sleep: async () => {
          const res = await h.deliver(late);
          expect(res.status).toBe(200);
        },
      }).run();
      expect(r).toMatchObject({ sent: 0, deferred: 1, silentSends: 0, incident: undefined });
      const m = await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      expect(messageText(m)).toContain("Delivered late");
      // Next reading: the delivery explains it.
      expect((await reconciler().run()).sent).toBe(0);
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)).toEqual([expect.objectContaining({ updates: 0 })]);
      expect(opsMessages(h)).toHaveLength(0);
    });
  });

  describe("ordering against real deliveries", () => {
    beforeEach(async () => {
      await start({ webhook: true });
    });

    it("a change webhooks delivered is not sent again, even when the listing still shows older content", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, {
        title: "Delivered thread",
        summary: "first",
        sentiment: "neutral",
      });
      await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      // A newer enrichment is delivered while the listing still lags behind it.
      h.emulator.store.updateThread(group, thread.id, { summary: "listing, behind" });
      await tick();
      await h.deliver(
        threadDelivery(group, thread.id, new Date().toISOString(), {
          title: "Delivered thread",
          summary: "newest, delivered",
        }),
      );
      await h.slack.waitFor(() =>
        digestsOf(h, thread.id).find((m) => messageText(m).includes("newest, delivered")),
      );
      const r = await reconciler().run();
      expect(r).toMatchObject({ sent: 0, silentSends: 0 });
      await queuesIdle(h);
      const [m] = digestsOf(h, thread.id);
      expect(messageText(m ?? { text: "" })).toContain("newest, delivered");
      expect(opsMessages(h)).toHaveLength(0);
    });

    it("while deliveries flow, an undelivered change waits one reading, then is sent once; no alert", async () => {
      await reconciler().run();
      await tick();
      const { thread } = await h.emulator.createThread(group, {
        title: "Normal thread",
        sentiment: "neutral",
      });
      await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      expect((await reconciler().run()).sent).toBe(0);
      await tick();
      // Re-enriched, but this one delivery was lost; others keep arriving.
      h.emulator.store.updateThread(group, thread.id, { summary: "Re-enriched, never delivered." });
      const { thread: other } = await h.emulator.createThread(group, {
        title: "Another thread",
        sentiment: "neutral",
      });
      await h.slack.waitFor(() => digestsOf(h, other.id)[0]);
      const first = await reconciler().run();
      expect(first).toMatchObject({ sent: 0, deferred: 1 });
      const second = await reconciler().run();
      expect(second).toMatchObject({ sent: 1, silentSends: 0, incident: undefined });
      const m = await h.slack.waitFor(() => digestsOf(h, thread.id).find((x) => x.updates >= 1));
      expect(messageText(m)).toContain("Re-enriched, never delivered.");
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)).toHaveLength(1);
      expect(opsMessages(h)).toHaveLength(0);
    });

    it("a reconciled digest never overwrites a delivery stamped later, and an older delivery never overwrites it", async () => {
      await reconciler().run();
      const hook = h.emulator.webhooks.list()[0];
      if (hook) h.emulator.webhooks.remove(hook.id);
      await tick();
      const beforeChange = new Date(Date.now() - 60_000).toISOString();
      const { thread } = await h.emulator.createThread(group, {
        title: "Raced thread",
        summary: "from the listing",
        sentiment: "mixed",
      });
      await reconciler().run();
      const posted = await h.slack.waitFor(() => digestsOf(h, thread.id)[0]);
      expect(messageText(posted)).toContain("from the listing");
      // A delayed delivery of an older enrichment: stale, no edit.
      await h.deliver(
        threadDelivery(group, thread.id, beforeChange, {
          title: "Raced thread",
          summary: "older, delivered late",
        }),
      );
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)[0]?.updates).toBe(0);
      // A delivery of a newer enrichment wins.
      await h.deliver(
        threadDelivery(group, thread.id, new Date().toISOString(), {
          title: "Raced thread",
          summary: "newer, delivered",
        }),
      );
      const edited = await h.slack.waitFor(() => digestsOf(h, thread.id).find((m) => m.updates >= 1));
      expect(messageText(edited)).toContain("newer, delivered");
      // The listing still showed the older enrichment: its sentiment was left out...
      expect(messageText(edited).toLowerCase()).not.toContain("mixed");
      // ...until the listing catches up, when the refresh edits it in.
      h.emulator.store.updateThread(group, thread.id, { summary: "newer, delivered", sentiment: "negative" });
      const completed = await h.slack.waitFor(() => digestsOf(h, thread.id).find((m) => m.updates >= 2));
      expect(messageText(completed)).toContain("newer, delivered");
      expect(messageText(completed).toLowerCase()).toContain("negative");
      // And the reconciler, seeing what is shown matches the listing, leaves it.
      await queuesIdle(h);
      expect((await reconciler().run()).sent).toBe(0);
      await queuesIdle(h);
      expect(digestsOf(h, thread.id)).toEqual([expect.objectContaining({ updates: 2 })]);
    });

    it("closes the incident once deliveries resume, and says so", async () => {
      await reconciler().run();
      const hook = h.emulator.webhooks.list()[0];
      if (hook) h.emulator.webhooks.remove(hook.id);
      await tick();
      const { thread: missed } = await h.emulator.createThread(group, { title: "Missed while disabled" });
      expect((await reconciler().run()).incident).toBe("opened");
      await h.slack.waitFor(() => digestsOf(h, missed.id)[0]);
      // Someone re-enables the webhook in the dashboard.
      h.emulator.webhooks.register({ url: h.webhookUrl, types: ["chatthread-crud", "chatmessage-crud"] });
      await tick();
      const { thread: next } = await h.emulator.createThread(group, { title: "Delivered again" });
      await h.slack.waitFor(() => digestsOf(h, next.id)[0]);
      const r = await reconciler().run();
      expect(r).toMatchObject({ incident: "closed", sent: 0 });
      expect(await h.workspace.ops.open()).not.toHaveProperty(SILENCE);
      const notes = await h.slack.waitFor(() => (opsMessages(h).length === 2 ? opsMessages(h) : undefined));
      expect(notes[1]?.text).toContain("resumed");
      expect(notes[1]?.text).toContain("posted or updated 1 digest meanwhile");
      expect((await readReconcileStatus(h.services.redis, h.services.keys)).incidents).toEqual([]);
      await queuesIdle(h);
      expect(digestsOf(h, next.id)).toHaveLength(1);
      expect(digestsOf(h, missed.id)).toHaveLength(1);
    });
  });

  describe("completing a digest that went out without sentiment", () => {
    beforeEach(async () => {
      // Refreshes far away, so only the reconciler can complete it within the test.
      await start({ webhook: true, tuning: { refreshDelaysMs: [600_000] } });
    });

    it("edits it with the listing's sentiment at the delivered timestamp", async () => {
      await reconciler().run();
      await tick();
      h.emulator.faults.set({ down: true, path: /displaychatthread/ });
      const { thread } = await h.emulator.createThread(group, {
        title: "Posted blind",
        sentiment: "negative",
      });
      const blind = await h.slack.waitFor(() => digestsOf(h, thread.id)[0], { timeoutMs: 15_000 });
      expect(messageText(blind)).toContain("Sentiment:* not rated yet");
      h.emulator.faults.clear();
      expect(await reconciler().run()).toMatchObject({ sent: 0, deferred: 1 });
      expect(await reconciler().run()).toMatchObject({ sent: 1 });
      const edited = await h.slack.waitFor(() => digestsOf(h, thread.id).find((m) => m.updates >= 1));
      expect(edited.ts).toBe(blind.ts);
      expect(messageText(edited).toLowerCase()).toContain("negative");
      // The ref is written once Slack has answered the edit: the stand-in can show it first.
      const refHasSentiment = async () =>
        (await h.workspace.refs.get(TEST_CHANNEL, thread.id))?.hasSentiment === true;
      expect(await waitUntil(refHasSentiment)).toBe(true);
    });
  });
});

describe("reconciler on its schedule (RECONCILE_INTERVAL=1)", () => {
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
  });

  it("baselines, then posts what the silent webhook missed and opens one incident", async () => {
    h = await startHarness({ registerWebhook: false, env: { RECONCILE_INTERVAL: "1" } });
    const group = freshGroup(h);
    h.emulator.store.addThread(group, { title: "Before subscribing" });
    await follow(h, group);
    const store = new BaselineStore(h.services.redis, h.services.keys);
    expect(await waitUntil(async () => (await store.groups()).includes(group))).toBe(true);
    const { thread } = await h.emulator.createThread(group, { title: "Found by the schedule" });
    const m = await h.slack.waitFor(() => digestsOf(h, thread.id)[0], { timeoutMs: 15_000 });
    expect(messageText(m)).toContain("Found by the schedule");
    await h.slack.waitFor(() => opsMessages(h)[0]);
    // Several more intervals: still one post, one alert.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(digestsOf(h, thread.id)).toHaveLength(1);
    expect(opsMessages(h)).toHaveLength(1);
    expect(h.slack.messages(TEST_CHANNEL).some((x) => messageText(x).includes("Before subscribing"))).toBe(
      false,
    );
    const status = await readReconcileStatus(h.services.redis, h.services.keys);
    expect(status.lastRunAt).toBeDefined();
    expect(status.incidents.map((i) => i.sent)).toEqual([1]);
  }, 30_000);
});
