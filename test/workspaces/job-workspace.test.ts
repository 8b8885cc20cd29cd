import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_WORKSPACE } from "../../src/compose/start-workers.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";

/*
 * Issue 34: a job carries its workspace, and a worker resolves it before anything else. Over
 * real Redis, BullMQ and the stand-in Slack.
 */

const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ab".repeat(32),
};

async function finished(h: Harness, id: string) {
  await expect
    .poll(
      async () => {
        const job = await h.services.queues.slack.getJob(id);
        return job?.finishedOn;
      },
      { timeout: 10_000 },
    )
    .toBeDefined();
  return h.services.queues.slack.getJob(id);
}

describe("with many workspaces, a job is refused unless it names its workspace", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("a job that names no workspace fails for good, with the reason, and sends nothing", async () => {
    await h.services.queues.slack.add(
      "notice",
      { kind: "notice", channelId: "C0ANYONE", text: "whose is this?" },
      { jobId: "no-workspace-1" },
    );
    const job = await finished(h, "no-workspace-1");
    expect(job?.failedReason).toBe(NO_WORKSPACE);
    expect(job?.attemptsMade).toBe(1);
    expect(h.slack.messages("C0ANYONE")).toEqual([]);
  });

  it("a job of a workspace that is not installed ends without any Slack call", async () => {
    await h.services.queues.slack.add(
      "notice",
      { kind: "notice", channelId: "C0GONE", text: "gone", workspaceId: "T0GONE" },
      { jobId: "gone-workspace-1" },
    );
    const job = await finished(h, "gone-workspace-1");
    expect(job?.failedReason).toBeUndefined();
    expect(h.slack.messages("C0GONE")).toEqual([]);
    expect(h.logLines.some((l) => l.includes("job of a workspace that is gone"))).toBe(true);
  });
});

describe("with one workspace, a job from before ids were stamped is that workspace's", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("runs, and what the workspace's producers add names it", async () => {
    await h.services.queues.slack.add(
      "notice",
      { kind: "notice", channelId: "C0LEGACY", text: "queued before the upgrade" },
      { jobId: "legacy-1" },
    );
    await h.slack.waitFor(() => h.slack.messages("C0LEGACY")[0]);
    await h.workspace.queues.slack.add(
      "notice",
      { kind: "notice", channelId: "C0NOW", text: "queued now" },
      { jobId: "stamped-1" },
    );
    await h.slack.waitFor(() => h.slack.messages("C0NOW")[0]);
    expect((await h.services.queues.slack.getJob("stamped-1"))?.data.workspaceId).toBe(h.workspace.id);
  });
});
