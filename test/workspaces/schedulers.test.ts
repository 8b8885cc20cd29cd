import { Writable } from "node:stream";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { buildServices, closeServices } from "../../src/compose/build-services.js";
import { startRoles } from "../../src/compose/start-roles.js";
import { BATCH_EVENT_TYPE } from "../../src/digest/flush.js";
import { digestSchedulerId } from "../../src/digest/schedules.js";
import { jobId } from "../../src/jobs/job-types.js";
import { createLogger } from "../../src/log.js";
import { readReconcileStatus } from "../../src/reconcile/reconcile-status.js";
import { installKeys, stateKeys, workspacePrefix, workspaceStateKeys } from "../../src/store/keys.js";
import { noteHas } from "../../src/store/workspaces-with.js";
import { SUBSCRIPTION_NOTICE } from "../../src/slack/commands/subscribe.js";
import { schedulerId } from "../../src/weekly/schedules.js";
import {
  FAST_TUNING,
  messageText,
  startHarness,
  TEST_SIGNING_SECRET,
  type Harness,
} from "../helpers/app-harness.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { teamInstall } from "./fixtures.js";

const GROUP = SEED.groups.support;
const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ab".repeat(32),
};

/** What the schedulers logged when they could not be set up (issue 14's start-up errors). */
const SCHEDULER_ERRORS =
  /no workspace for this work|is not a function|could not set the schedule|could not check/;

interface Ws {
  id: string;
  token: string;
  channel: string;
}

/** The job scheduler id a workspace's own view of a shared queue gives `id`. */
const ownId = (ws: Ws, id: string) => jobId("w", ws.id, id);

const eventType = (m: { metadata?: unknown }) =>
  (m.metadata as { event_type?: string } | undefined)?.event_type;
/** The public line subscribing posts in the channel. */
const isNotice = (m: { metadata?: unknown }) => eventType(m) === SUBSCRIPTION_NOTICE;

/** Makes a job scheduler's next job due now: the schedule fires without waiting for its time. */
async function fireNext(queue: Queue, key: string): Promise<string> {
  const next = async () => (await queue.getDelayed()).find((j) => j.repeatJobKey === key);
  await expect.poll(next, { timeout: 5_000 }).toBeDefined();
  const job = await next();
  if (!job?.id) throw new Error(`no next job of ${key}`);
  await job.promote();
  return job.id;
}

/** Fires the reconcile scheduler's next job now and waits for what it returns. */
async function reconcileNow(queue: Queue): Promise<unknown> {
  const id = await fireNext(queue, "reconcile");
  await expect.poll(async () => (await queue.getJob(id))?.finishedOn, { timeout: 15_000 }).toBeDefined();
  return (await queue.getJob(id))?.returnvalue;
}

/*
 * Issue 14: with many workspaces the repeating work still runs. The deployment-wide schedulers
 * (reconcile, alerts) are set once on the shared queues and each of their jobs runs for every
 * workspace; weekly and digest schedules are each workspace's own, fire in it only, and are put
 * back workspace by workspace when a scheduler starts.
 */
describe("schedulers with many workspaces", () => {
  let h: Harness;
  const A: Ws = { id: "T0ALPHA", token: "", channel: "C0ALPHA" };
  const B: Ws = { id: "T0BRAVO", token: "", channel: "C0BRAVO" };
  const B_DIGEST = "C0BRAVODIG";

  async function command(ws: Ws, text: string, channel: string): Promise<string> {
    const url = h.slack.responseUrl();
    const body = slashCommandBody({
      text,
      team_id: ws.id,
      channel_id: channel,
      user_id: "U0ADMIN",
      response_url: url,
    });
    const res = await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body);
    expect(res.status).toBe(200);
    const id = url.split("/").at(-1) ?? "";
    const reply = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    return JSON.stringify(reply.body);
  }

  async function install(ws: Ws, connect = true): Promise<void> {
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    const code = h.slack.oauth.grant({ teamId: ws.id, teamName: ws.id, installerId: "U0ADMIN" });
    const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
    ws.token = r.ok ? String(r.access_token) : "";
    await installs.installations.storeInstallation(teamInstall(ws.id, ws.token));
    if (!connect) return;
    const secret = await installs.connections.connect(ws.id, {
      apiKey: h.emulator.apiKey,
      baseUrl: h.emulator.baseUrl,
      by: "U0ADMIN",
    });
    h.emulator.webhooks.register({
      url: `${h.baseUrl}/webhooks/insight/${secret}`,
      types: ["chatthread-crud", "chatmessage-crud"],
    });
  }

  /**
   * A workspace that follows a group, as far as the deployment-wide passes can tell: its set of
   * followed groups, noted in the deployment's set of workspaces with subscriptions (as the
   * subscription store notes it).
   */
  const follows = async (ws: Ws) => {
    const keys = workspaceStateKeys(h.config.redis.prefix, ws.id);
    await h.services.redis.sadd(keys.subscribedGroups, SEED.groups.support);
    await noteHas(h.services.redis, keys.workspaceMark, "subscriptions");
  };

  const WEEKLY_KEY = ownId(A, schedulerId(A.channel));
  const DIGEST_KEY = ownId(B, digestSchedulerId(B_DIGEST, "4h"));
  const reconcileStatusOf = (ws: Ws) =>
    readReconcileStatus(h.services.redis, stateKeys(workspacePrefix(h.config.redis.prefix, ws.id)));

  /** Posts in a channel made with a workspace's token. */
  const postsBy = (ws: Ws, channel: string) =>
    h.slack.posts().filter((c) => c.team === ws.id && c.args.channel === channel);

  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
    for (const ws of [A, B]) await install(ws);
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("sets the reconcile and alerts job schedulers once, on the shared queues, without errors", async () => {
    expect(h.logLines.filter((l) => SCHEDULER_ERRORS.test(l))).toEqual([]);
    const reconcile = await h.services.queues.reconcile.getJobSchedulers(0, -1);
    const alerts = await h.services.queues.alerts.getJobSchedulers(0, -1);
    expect(reconcile.map((j) => j.key)).toEqual(["reconcile"]);
    expect(alerts.map((j) => j.key)).toEqual(["alerts"]);
    // Their jobs belong to no workspace: the worker runs each for every workspace.
    expect(JSON.stringify([reconcile, alerts])).not.toContain("workspaceId");
  });

  it("`weekly on` and digest intake make each workspace's schedules inside it, under its own id", async () => {
    expect(await command(A, `subscribe ${GROUP}`, A.channel)).toContain("Subscribed");
    expect(await command(B, `subscribe ${GROUP}`, B.channel)).toContain("Subscribed");
    expect(await command(A, "weekly on monday 09:00", A.channel)).toContain("Monday");
    expect(await command(B, `subscribe ${GROUP} --mode digest --every 4h`, B_DIGEST)).toContain("digest");
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Replica lag after the upgrade",
      summary: "Followers fall behind during backups.",
      sentiment: "negative",
    });
    // Intake made the period's scheduler inside B (a worker's job of B's delivery).
    const digest = h.services.queues.digest;
    await expect
      .poll(async () => (await digest.getJobSchedulers(0, -1)).map((j) => j.key), { timeout: 10_000 })
      .toEqual([DIGEST_KEY]);
    expect((await h.services.queues.weekly.getJobSchedulers(0, -1)).map((j) => j.key)).toEqual([WEEKLY_KEY]);
    expect((await h.services.queues.weekly.getJobScheduler(WEEKLY_KEY))?.template?.data).toMatchObject({
      channelId: A.channel,
      workspaceId: A.id,
    });
    expect((await digest.getJobScheduler(DIGEST_KEY))?.template?.data).toMatchObject({
      channelId: B_DIGEST,
      workspaceId: B.id,
    });
    // The realtime channels got their card meanwhile; the digest channel waits for its period.
    await h.slack.waitFor(() =>
      postsBy(A, A.channel).find((c) => JSON.stringify(c.args).includes(thread.id)),
    );
    await h.slack.waitFor(() =>
      postsBy(B, B.channel).find((c) => JSON.stringify(c.args).includes(thread.id)),
    );
    expect(postsBy(B, B_DIGEST).filter((c) => !isNotice(c.args))).toEqual([]);
  }, 30_000);

  it("a scheduler starting later puts back each workspace's own schedules, and the shared ones stay single", async () => {
    // Lost meanwhile (a queue cleaned from the dashboard): Redis still has what was asked for.
    await h.services.queues.weekly.removeJobScheduler(WEEKLY_KEY);
    await h.services.queues.digest.removeJobScheduler(DIGEST_KEY);

    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString("utf8"));
        cb();
      },
    });
    const services = buildServices(
      { ...h.config, role: "scheduler" },
      createLogger({ level: "debug", destination: sink }),
      FAST_TUNING,
    );
    const running = await startRoles(services);
    try {
      expect(lines.filter((l) => SCHEDULER_ERRORS.test(l))).toEqual([]);
      const weekly = await h.services.queues.weekly.getJobScheduler(WEEKLY_KEY);
      expect(weekly?.pattern).toBe("0 9 * * 1");
      expect(weekly?.template?.data).toMatchObject({ channelId: A.channel, workspaceId: A.id });
      const digest = await h.services.queues.digest.getJobScheduler(DIGEST_KEY);
      expect(digest?.template?.data).toMatchObject({ channelId: B_DIGEST, workspaceId: B.id });
      // Each was put back by its own workspace, and only there.
      const restored = lines
        .map((l) => JSON.parse(l) as { workspace?: string; msg: string })
        .filter((l) => l.msg.endsWith("schedules re-asserted"));
      expect(restored.map((l) => [l.workspace, l.msg]).sort()).toEqual([
        [A.id, "weekly schedules re-asserted"],
        [B.id, "digest schedules re-asserted"],
      ]);
      expect((await h.services.queues.reconcile.getJobSchedulers(0, -1)).map((j) => j.key)).toEqual([
        "reconcile",
      ]);
      expect((await h.services.queues.alerts.getJobSchedulers(0, -1)).map((j) => j.key)).toEqual(["alerts"]);
    } finally {
      await running.stop();
      await closeServices(services);
    }
  }, 30_000);

  it("A's weekly schedule fires in A's channel only, with A's token", async () => {
    const before = h.slack.posts().length;
    await fireNext(h.services.queues.weekly, WEEKLY_KEY);
    const summary = await h.slack.waitFor(
      () =>
        h.slack
          .posts()
          .slice(before)
          .find((c) => JSON.stringify(c.args).includes("Lumen DB Support")),
      { timeoutMs: 20_000 },
    );
    expect([summary.team, summary.args.channel]).toEqual([A.id, A.channel]);
    // Nothing of it anywhere else: not in B's channels, not with B's token.
    await new Promise((r) => setTimeout(r, 300));
    const since = h.slack.posts().slice(before);
    expect(since.filter((c) => c.args.channel !== A.channel || c.team !== A.id)).toEqual([]);
  }, 30_000);

  it("B's digest period fires and its flush posts the batch in B's digest channel only", async () => {
    await fireNext(h.services.queues.digest, DIGEST_KEY);
    const batch = await h.slack.waitFor(
      () => h.slack.messages(B_DIGEST).find((m) => eventType(m) === BATCH_EVENT_TYPE),
      { timeoutMs: 10_000 },
    );
    expect(messageText(batch)).toContain("Replica lag after the upgrade");
    const batches = h.slack.posts().filter((c) => eventType(c.args) === BATCH_EVENT_TYPE);
    expect(batches.map((c) => [c.team, c.args.channel])).toEqual([[B.id, B_DIGEST]]);
  }, 30_000);

  it("one reconcile job runs the pass for each workspace, in its own state", async () => {
    const reconcile = h.services.queues.reconcile;
    const result = await reconcileNow(reconcile);
    expect(result).toEqual({ workspaces: 2, failed: 0, notConnected: 0 });
    for (const ws of [A, B]) {
      const status = await reconcileStatusOf(ws);
      expect(status.lastRunAt, ws.id).toBeDefined();
      expect(status.groupsRead, ws.id).toBe(1);
    }
    // The deployment's own (single-workspace) state is not where it ran.
    expect((await readReconcileStatus(h.services.redis, h.services.keys)).lastRunAt).toBeUndefined();
  }, 30_000);

  it("a workspace whose pass fails does not stop the others'", async () => {
    // Installed first in the list, its stored installation unreadable (sealed under another key).
    const broken: Ws = { id: "T0ABROKEN", token: "", channel: "C0BROKEN" };
    await install(broken, false);
    const installation = installKeys(h.config.redis.prefix).installation(broken.id);
    await h.services.redis.hset(installation, "sealed", "v1:not-a-sealed-value");
    // It follows a group, so the pass is due for it (a workspace with nothing to do is not visited).
    await follows(broken);

    const reconcile = h.services.queues.reconcile;
    const before = await Promise.all([A, B].map(async (ws) => (await reconcileStatusOf(ws)).lastRunAt));
    const result = await reconcileNow(reconcile);
    expect(result).toEqual({ workspaces: 2, failed: 1, notConnected: 0 });
    const after = await Promise.all([A, B].map(async (ws) => (await reconcileStatusOf(ws)).lastRunAt));
    after.forEach((at, i) => expect(at).not.toBe(before[i]));
    const warned = h.logLines
      .filter((l) => l.includes("job failed for one workspace"))
      .map((l) => JSON.parse(l));
    expect(warned.map((l: { workspace: string }) => l.workspace)).toEqual([broken.id]);
  }, 30_000);

  it("a workspace installed but not connected to an Insight service is left out of the reconcile pass", async () => {
    const idle: Ws = { id: "T0CIDLE", token: "", channel: "C0IDLE" };
    await install(idle, false);
    await follows(idle);
    const reconcile = h.services.queues.reconcile;
    const result = await reconcileNow(reconcile);
    // The broken one of the test before still fails; the idle one is counted apart, not run.
    expect(result).toEqual({ workspaces: 2, failed: 1, notConnected: 1 });
    expect((await reconcileStatusOf(idle)).lastRunAt).toBeUndefined();
  }, 30_000);

  it("a workspace installed and connected that follows nothing is not visited by the pass at all", async () => {
    const quiet: Ws = { id: "T0DQUIET", token: "", channel: "C0QUIET" };
    await install(quiet);
    const result = await reconcileNow(h.services.queues.reconcile);
    // As the test before: neither run nor counted.
    expect(result).toEqual({ workspaces: 2, failed: 1, notConnected: 1 });
    expect((await reconcileStatusOf(quiet)).lastRunAt).toBeUndefined();
  }, 30_000);

  it("uninstalling B removes its digest period's scheduler as well as its weekly ones; A's stays", async () => {
    const event = JSON.stringify({
      type: "event_callback",
      team_id: B.id,
      api_app_id: "A0STANDIN",
      event: { type: "app_uninstalled", event_ts: "1700000000.000100" },
      event_id: "Ev0SCHEDUNINSTALL",
      event_time: 1700000000,
    });
    const res = await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, event, "application/json");
    expect(res.status).toBe(200);
    await expect
      .poll(async () => (await h.services.queues.digest.getJobSchedulers(0, -1)).length, { timeout: 5_000 })
      .toBe(0);
    expect((await h.services.queues.weekly.getJobSchedulers(0, -1)).map((j) => j.key)).toEqual([WEEKLY_KEY]);
  });
});
