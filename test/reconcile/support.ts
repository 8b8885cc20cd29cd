import { SEED } from "../../dev/emulator/index.js";
import type { Harness } from "../helpers/app-harness.js";
import { OPS_CHANNEL, TEST_CHANNEL } from "../helpers/app-harness.js";

/** Digest messages of one thread in a channel (found by their metadata, as the app finds them). */
export const digestsOf = (h: Harness, threadId: string, channel = TEST_CHANNEL) =>
  h.slack
    .messages(channel)
    .filter(
      (m) =>
        (m.metadata as { event_payload?: { thread_id?: string } } | undefined)?.event_payload?.thread_id ===
        threadId,
    );

export const opsMessages = (h: Harness) => h.slack.messages(OPS_CHANNEL);

/** Follows a group from a channel straight through the store (no slash command needed). */
export async function follow(
  h: Harness,
  groupId: string,
  channel = TEST_CHANNEL,
  filters = {},
): Promise<void> {
  await h.workspace.subscriptions.put({
    channelId: channel,
    groupId,
    groupName: h.emulator.store.group(groupId)?.name ?? "group",
    communityId: h.emulator.store.group(groupId)?.community,
    filters,
    createdBy: "U0TEST",
    createdAt: new Date().toISOString(),
  });
}

/** A fresh, empty chat group of its own, so a test's baseline starts clean. */
export function freshGroup(h: Harness, name = "Reconcile test group"): string {
  return h.emulator.store.addGroup(SEED.communities.primary, { name })._id;
}

/** The scheduler runs once as the app starts; tests that drive runs themselves wait for it first. */
export async function waitForStartupRun(h: Harness): Promise<void> {
  // The run records its status before it releases its lock: a pass started in between would
  // find the lock held and do nothing.
  // With nothing followed yet the pass has nothing to do (issue 38: a workspace is visited only
  // when something is due), so the start-up job ends without a run: wait for that job.
  const ok = await waitUntil(
    async () =>
      ((await h.services.queues.reconcile.getJobCounts("completed")).completed ?? 0) > 0 &&
      (await h.services.redis.exists(h.services.keys.lock("reconcile"))) === 0,
    10_000,
  );
  if (!ok) throw new Error("the start-up reconcile run did not happen");
}

export async function waitUntil(
  probe: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Lets the Slack-out queue settle: no job waiting, active or delayed. */
export async function queuesIdle(h: Harness, timeoutMs = 15_000): Promise<boolean> {
  return waitUntil(async () => {
    for (const q of [h.services.queues.deliveries, h.services.queues.slack, h.services.queues.refresh]) {
      const c = await q.getJobCounts("waiting", "active", "delayed", "prioritized");
      if ((c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) > 0) return false;
    }
    return true;
  }, timeoutMs);
}

/**
 * A chatthread-crud body as the service sends it. No summary unless given: a summary that
 * differs from the listing's tells the worker the listing lags behind the delivery.
 */
export function threadDelivery(
  groupId: string,
  threadId: string,
  timestamp: string,
  extra: Record<string, unknown> = {},
) {
  return {
    webhookType: "chatthread-crud",
    actionType: "updated",
    payload: {
      communityId: SEED.communities.primary,
      timestamp,
      threadId,
      groupId,
      groupName: "Reconcile test group",
      title: `Thread ${threadId}`,
      participantCount: 2,
      messageCount: 4,
      ...extra,
    },
  };
}
