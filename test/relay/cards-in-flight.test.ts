import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { deliveriesOf } from "../../src/jobs/job-types.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";

const GROUP = SEED.groups.support;
const IN_FLIGHT = 50;
const THREADS = IN_FLIGHT + 5;

describe("relay: while Slack is slow, one process has 50 cards on their way at once", () => {
  let h: Harness;
  beforeAll(async () => {
    // No per-channel gap: every card's turn is now, so each delivery's job sends its own.
    h = await startHarness({ tuning: { channelGapMs: 0 } });
    await h.subscribe(GROUP);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("fifty deliveries each wait on a Slack call; the next ones wait for one to finish", async () => {
    h.slack.fail.hang("chat.postMessage", { count: THREADS });
    await Promise.all(
      Array.from({ length: THREADS }, (_, i) =>
        h.emulator.createThread(GROUP, { title: `Slow Slack ${i}`, sentiment: "neutral" }),
      ),
    );
    const hung = () =>
      h.slack.calls.filter((c) => c.method === "chat.postMessage" && c.error === "hang").length;
    // Well inside the Slack client's 10 s timeout, after which the hung calls fail.
    await h.slack.waitFor(() => hung() >= IN_FLIGHT, { timeoutMs: 7_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect(hung()).toBe(IN_FLIGHT);
    // Every delivery is still in a job (alone or in a batch), none of them dropped or done.
    const jobs = await h.services.queues.deliveries.getJobs(["active", "waiting"]);
    expect(jobs.flatMap((j) => deliveriesOf(j.data))).toHaveLength(THREADS);
    // Slack recovers: every card is still posted (the failed calls are retried by the Slack queue).
    h.slack.fail.clear();
    h.slack.fail.dropHung();
    const cards = () => h.slack.messages(TEST_CHANNEL).filter((m) => m.text.includes("Slow Slack"));
    await h.slack.waitFor(() => cards().length >= THREADS, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 300));
    // Once each: a dropped call posted nothing, and its retry is the card's only post.
    expect(new Set(cards().map((m) => m.text)).size).toBe(THREADS);
    expect(h.slack.posts().filter((c) => String(c.args.text).includes("Slow Slack"))).toHaveLength(THREADS);
  });
});
