import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedWorkspaceServices } from "../../src/compose/workspace-services.js";
import type { SlackProducer } from "../../src/workspaces/workspace-queues.js";
import { QUEUE_NAMES, type SlackJob } from "../../src/jobs/job-types.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { teamInstall } from "./fixtures.js";

/*
 * DESIGN rule 12 and issue 14 item 5: Slack limits are per workspace, so one workspace's flood
 * or 429 must not hold back another's messages. The app runs with its real workers, over real
 * Redis, against the stand-in Slack; jobs are queued through each workspace's own producer (what
 * the features use in multi-workspace mode).
 */

const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ab".repeat(32),
};

interface Ws {
  id: string;
  token: string;
  slack: () => SlackProducer;
}

describe("one noisy workspace cannot starve the others (slack-out takes fair turns)", () => {
  let h: Harness;
  const A: Ws = { id: "T0ALPHA", token: "", slack: () => fail() };
  const B: Ws = { id: "T0BRAVO", token: "", slack: () => fail() };
  const fail = (): never => {
    throw new Error("not installed");
  };

  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      const code = h.slack.oauth.grant({ teamId: ws.id, teamName: ws.id, installerId: "U0ADMIN" });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      ws.token = r.ok ? String(r.access_token) : "";
      await installs.installations.storeInstallation(teamInstall(ws.id, ws.token));
      const services = installedWorkspaceServices(
        h.services,
        { id: ws.id, botToken: ws.token, insight: undefined },
        async () => [],
      );
      ws.slack = () => services.queues.slack;
    }
  });
  afterAll(async () => {
    await h?.stop();
  });

  const slackWorkers = () => h.running.workers.filter((w) => w.name.startsWith(QUEUE_NAMES.slack));
  const postsOf = (team: string) => h.slack.posts().filter((c) => c.team === team);

  it("A has 1,000 posts pending over 200 channels; B's single post is among the first few sent", async () => {
    // Held while both queue, so A's 1,000 are really pending when B's comes in.
    await Promise.all(slackWorkers().map((w) => w.pause(true)));
    const before = h.slack.posts().length;
    await A.slack().addBulk(
      Array.from({ length: 1_000 }, (_, i) => ({
        name: "notice",
        data: { kind: "notice", channelId: `C0A${i % 200}`, text: `alpha ${i}` } satisfies SlackJob,
      })),
    );
    await B.slack().add("notice", { kind: "notice", channelId: "C0B", text: "bravo 0" });
    const resumed = Date.now();
    for (const w of slackWorkers()) w.resume();

    const bPost = await h.slack.waitFor(() => postsOf(B.id).find((c) => c.args.text === "bravo 0"), {
      timeoutMs: 10_000,
    });
    const sent = h.slack.posts().slice(before);
    const rank = sent.indexOf(bPost);
    // First in, first out would put it behind all 1,000 (at least 200 sends: one per A channel).
    expect(rank).toBeGreaterThanOrEqual(0);
    expect(rank).toBeLessThan(24);
    expect(bPost.at - resumed).toBeLessThan(5_000);

    // A's posts all go out too, and each A channel gets its posts in the order they were queued.
    await h.slack.waitFor(() => postsOf(A.id).length >= 1_000, { timeoutMs: 60_000 });
    for (const ch of ["C0A0", "C0A7", "C0A199"]) {
      const texts = postsOf(A.id)
        .filter((c) => c.args.channel === ch)
        .map((c) => Number(String(c.args.text).split(" ")[1]));
      expect(texts).toHaveLength(5);
      expect(texts).toEqual([...texts].sort((x, y) => x - y));
    }
  }, 90_000);

  it("a 429 for A holds A's channel for Retry-After; B's post to a channel of the same id goes at once", async () => {
    const same = "C0SAME";
    h.slack.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 3, team: A.id });
    await A.slack().add("notice", { kind: "notice", channelId: same, text: "alpha limited" });
    const limited = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.team === A.id && c.status === 429 && c.args.channel === same),
    );
    await B.slack().add("notice", { kind: "notice", channelId: same, text: "bravo free" });
    const bPost = await h.slack.waitFor(() => postsOf(B.id).find((c) => c.args.text === "bravo free"));
    const aPost = await h.slack.waitFor(() => postsOf(A.id).find((c) => c.args.text === "alpha limited"), {
      timeoutMs: 10_000,
    });
    // B did not wait for A's Retry-After (nor for A's slot in its own channel of the same id)...
    expect(h.slack.calls.indexOf(bPost)).toBeLessThan(h.slack.calls.indexOf(aPost));
    expect(bPost.at - limited.at).toBeLessThan(3_000);
    // ...and A waited it out rather than calling again early.
    expect(aPost.at - limited.at).toBeGreaterThanOrEqual(2_900);
    const aCallsBetween = h.slack.calls.filter(
      (c) => c.team === A.id && c.at > limited.at && c.at < aPost.at && c.method === "chat.postMessage",
    );
    expect(aCallsBetween).toEqual([]);
  }, 30_000);
});
