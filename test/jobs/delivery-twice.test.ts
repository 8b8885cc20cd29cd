// A batch job cut short by a killed worker runs again, each of its deliveries as a job of its
// own (process-batch.ts), so deliveries the first run finished are processed twice. Digests and
// counts absorb it (card versions, job ids); a new message under a card (`--replies on`) is
// queued once however often its delivery is processed (store/pending-replies.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { jobOfOwn, type DeliveryJob } from "../../src/jobs/job-types.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { digestsOf, messageText, startHarness, type Harness } from "../helpers/app-harness.js";

const GROUP = SEED.groups.support;
const CHANNEL = "C0TWICE";

describe("a delivery processed twice after a kill", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tuning: { repliesBatchMs: 1_500 } });
    await h.workspace.subscriptions.put({
      channelId: CHANNEL,
      groupId: GROUP,
      groupName: "Lumen DB Support",
      communityId: SEED.communities.primary,
      filters: {},
      delivery: { mode: "realtime", every: "24h", format: "compact", replies: true },
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
    });
  });
  afterAll(async () => h?.stop());

  it("puts its new message under the card once: processed twice before the reply, and again after it", async () => {
    const { thread } = await h.emulator.createThread(GROUP, { title: "Backups on ARM", sentiment: "mixed" });
    const card = await h.slack.waitFor(() => digestsOf(h, thread.id, CHANNEL)[0]);
    // The message is in the service's listing (where replies check it is a person's, not a bot's).
    h.emulator.store.addMessage(GROUP, thread.id, {
      id: "msg-twice-0001",
      messageText: "Said once, shown once",
    });
    const body = JSON.stringify({
      webhookType: "chatmessage-crud",
      actionType: "created",
      payload: {
        communityId: SEED.communities.primary,
        timestamp: new Date().toISOString(),
        messageId: "msg-twice-0001",
        threadId: thread.id,
        groupId: GROUP,
        senderName: "Dana",
        text: "Said once, shown once",
      },
    });
    const c = classifyDelivery(body);
    if (c.kind !== "valid") throw new Error("not a valid delivery");
    const delivery: DeliveryJob = {
      deliveryId: c.deliveryId,
      receivedAt: new Date().toISOString(),
      event: c.event,
      deduplicated: true,
    };
    const { deliveries } = h.services.queues;
    // The batch's first run, then its deliveries again as jobs of their own (the run after the kill).
    await deliveries.add("batch", { batch: [delivery] }, { jobId: "batch|twice|1" });
    const own = jobOfOwn(delivery);
    await deliveries.add(own.name, own.data, own.opts);
    const repliesUnder = () =>
      h.slack.messages(CHANNEL).filter((m) => m.thread_ts === card.ts && m.ts !== card.ts);
    await h.slack.waitFor(() => repliesUnder()[0], { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 2_500)); // another window: a second reply would show
    // Processed once more after the reply went out (a batch taken again later).
    await deliveries.add("batch", { batch: [delivery] }, { jobId: "batch|twice|2" });
    await new Promise((r) => setTimeout(r, 3_500));
    const replies = repliesUnder();
    expect(replies).toHaveLength(1);
    const shown = replies.map((m) => messageText({ text: m.text, blocks: m.blocks ?? [] })).join("\n");
    expect(shown.split("Said once, shown once")).toHaveLength(2);
    expect(digestsOf(h, thread.id, CHANNEL)).toHaveLength(1);
  }, 40_000);
});
