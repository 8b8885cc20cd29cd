import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { workspaceQueues } from "../../src/workspaces/workspace-queues.js";
import { startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { scrape, value } from "../metrics/scrape.js";
import { teamInstall } from "./fixtures.js";

const PASSWORD = "admin-password-for-tests";
const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString("base64")}`;
const ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ef".repeat(32),
  ADMIN_PASSWORD: PASSWORD,
  // No workers: queued jobs stay waiting, so depths can be read exactly.
  ROLE: "web",
};

async function get(url: string, authorization?: string) {
  const res = await request(url, { headers: authorization ? { authorization } : {} });
  return { status: res.statusCode, body: await res.body.text() };
}

describe("operator view in multi-workspace mode: /metrics, the admin page, status", () => {
  let h: Harness;
  const A = { id: "T0OPSA", name: "Alpha Customer", token: "", secret: "", channel: "C0OPSA" };
  const B = { id: "T0OPSB", name: "Bravo Customer", token: "", secret: "", channel: "C0OPSB" };

  async function command(
    ws: { id: string; channel: string },
    text: string,
    user = "U0MEMBER",
  ): Promise<string> {
    const url = h.slack.responseUrl();
    const body = slashCommandBody({
      text,
      team_id: ws.id,
      channel_id: ws.channel,
      user_id: user,
      response_url: url,
    });
    expect((await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body)).status).toBe(200);
    const id = url.split("/").at(-1) ?? "";
    return JSON.stringify((await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id))).body);
  }

  beforeAll(async () => {
    h = await startHarness({ env: ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      const code = h.slack.oauth.grant({ teamId: ws.id, teamName: ws.name, installerId: "U0INST" });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      ws.token = r.ok ? String(r.access_token) : "";
      await installs.installations.storeInstallation(
        teamInstall(ws.id, ws.token, { team: { id: ws.id, name: ws.name } }),
      );
    }
    // A is connected and follows a group; then its key is refused. B never connected.
    A.secret = await installs.connections.connect(A.id, {
      apiKey: h.emulator.apiKey,
      baseUrl: h.emulator.baseUrl,
      by: "U0INST",
    });
    expect(await command(A, `subscribe ${SEED.groups.support}`)).toContain("Subscribed");
    expect(await installs.connections.markKeyRejected(A.id, h.emulator.apiKey)).toBeDefined();
    // Waiting work: A 5 jobs plus one with its own id (added twice: one job), B 2, the deployment 1.
    const weekly = h.services.queues.weekly;
    const a = workspaceQueues(h.services.queues, A.id, { ownIds: true }).weekly;
    const b = workspaceQueues(h.services.queues, B.id, { ownIds: true }).weekly;
    const job = { channelId: "C0X", trigger: "now" as const, timeZone: "UTC" };
    for (let i = 0; i < 5; i++) await a.add("weekly", job);
    await a.add("weekly", job, { jobId: "same" });
    await a.add("weekly", job, { jobId: "same" });
    for (let i = 0; i < 2; i++) await b.add("weekly", job);
    await weekly.add("weekly", job);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("/metrics ranks the busiest workspaces' waiting jobs per queue, with no workspace id or name in any label", async () => {
    const { samples } = await scrape(h.baseUrl);
    const depth = (rank: string) =>
      value(samples, "insight_relay_workspace_queue_depth", { queue: "weekly", rank });
    expect(depth("1")).toBe(6);
    expect(depth("2")).toBe(2);
    expect(depth("3")).toBe(0);
    expect(depth("10")).toBe(0);
    expect(depth("others")).toBe(1); // the deployment's own job
    expect(
      value(samples, "insight_relay_workspace_queue_depth", { queue: "weekly", rank: "11" }),
    ).toBeUndefined();
    expect(value(samples, "insight_relay_workspaces", { state: "installed" })).toBe(2);
    expect(value(samples, "insight_relay_workspaces", { state: "connected" })).toBe(1);
    const labelValues = samples.flatMap((s) => Object.values(s.labels)).join(" ");
    for (const leak of [A.id, B.id, A.name, B.name]) expect(labelValues).not.toContain(leak);
  });

  it("the admin page lists each workspace (connection, refused key, subscriptions, waiting jobs) and no secret", async () => {
    expect((await get(`${h.baseUrl}/admin/workspaces`)).status).toBe(401);
    expect((await get(`${h.baseUrl}/admin/workspaces.json`)).status).toBe(401);
    const json = await get(`${h.baseUrl}/admin/workspaces.json`, auth);
    expect(json.status).toBe(200);
    const rows = (JSON.parse(json.body) as { workspaces: Record<string, unknown>[] }).workspaces;
    expect(rows.find((r) => r.id === A.id)).toMatchObject({
      name: A.name,
      connected: true,
      keyRejectedAt: expect.any(String),
      subscriptions: 1,
      waitingJobs: 6,
    });
    expect(rows.find((r) => r.id === B.id)).toMatchObject({
      connected: false,
      subscriptions: 0,
      waitingJobs: 2,
    });
    const page = await get(`${h.baseUrl}/admin/workspaces`, auth);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Alpha Customer");
    expect(page.body).toContain("refused since");
    expect(page.body).toContain("not connected");
    for (const secret of [h.emulator.apiKey, A.secret, A.token, B.token]) {
      expect(page.body + json.body).not.toContain(secret);
    }
    // The queue dashboard works in this mode too.
    expect((await get(`${h.baseUrl}/admin/queues`, auth)).status).toBe(200);
  });

  it("status in a workspace counts that workspace's jobs only", async () => {
    // ADMIN_USER_IDS unset: the workspace's own admins (its installer) see the operator detail.
    const inB = await command(B, "status", "U0INST");
    expect(inB).toContain("`weekly`: 2 waiting");
    expect(inB).toContain("`slack-out`: 0 waiting");
    expect(await command(A, "status", "U0INST")).toContain("`weekly`: 6 waiting");
    // A member: the same facts in plain words, no queue names.
    const member = await command(B, "status");
    expect(member).not.toContain("`weekly`");
    expect(member).toContain("*Work*\\n");
  });

  it("status in a workspace that never connected says so, instead of a network failure", async () => {
    const inB = await command(B, "status");
    expect(inB).toContain("not connected yet. A workspace admin connects it on the app's Home tab.");
    expect(inB).not.toContain("unreachable");
    // A, connected (its key refused since), is probed as before.
    expect(await command(A, "status")).not.toContain("not connected yet");
  });
});
