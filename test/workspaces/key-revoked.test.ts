import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dmChannelOf } from "../../dev/slack-standin/methods.js";
import { OPS_CHANNEL, startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { teamInstall } from "./fixtures.js";

const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "cd".repeat(32),
};

interface Ws {
  id: string;
  key: string;
  channel: string;
  installer: string;
  admin: string;
  member: string;
}

const REFUSED = "refused this workspace's API key";

describe("a revoked Insight key alerts that workspace's admins (Home and a DM), nobody else", () => {
  let h: Harness;
  const A: Ws = {
    id: "T0KEYA",
    key: "emu_key_of_workspace_a_0001",
    channel: "C0KEYA",
    installer: "U0AINST",
    admin: "U0AADMIN",
    member: "U0AMEMBER",
  };
  const B: Ws = {
    id: "T0KEYB",
    key: "emu_key_of_workspace_b_0002",
    channel: "C0KEYB",
    installer: "U0BINST",
    admin: "U0BADMIN",
    member: "U0BMEMBER",
  };

  /** Runs a command in a workspace's channel and waits for its answer. */
  async function command(ws: Ws, text: string, user = ws.member): Promise<string> {
    const url = h.slack.responseUrl();
    const body = slashCommandBody({
      text,
      team_id: ws.id,
      channel_id: ws.channel,
      user_id: user,
      response_url: url,
    });
    const res = await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body);
    expect(res.status).toBe(200);
    const id = url.split("/").at(-1) ?? "";
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    return JSON.stringify(answer.body);
  }

  let homeEvents = 0;
  /** Opens a user's Home tab and returns what was published for them. */
  async function home(ws: Ws, user: string): Promise<string> {
    const before = h.slack.calls.length;
    homeEvents++;
    await postSigned(
      `${h.baseUrl}/slack/events`,
      TEST_SIGNING_SECRET,
      JSON.stringify({
        type: "event_callback",
        team_id: ws.id,
        api_app_id: "A0STANDIN",
        event: {
          type: "app_home_opened",
          user,
          channel: "D0HOME",
          tab: "home",
          event_ts: "1700000000.000200",
        },
        event_id: `Ev0KEY${homeEvents}`,
        event_time: 1700000000,
      }),
      "application/json",
    );
    const call = await h.slack.waitFor(() =>
      h.slack.calls
        .slice(before)
        .find((c) => c.method === "views.publish" && c.team === ws.id && c.args.user_id === user),
    );
    return JSON.stringify(call.args.view);
  }

  /** Every DM the stand-in saw about a refused key, as [team, channel]. */
  const refusedDms = () =>
    h.slack
      .posts()
      .filter((c) => String(c.args.text ?? "").includes(REFUSED))
      .map((c) => [c.team, String(c.args.channel)]);

  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      h.emulator.grantKey(ws.key, "all");
      const code = h.slack.oauth.grant({
        teamId: ws.id,
        teamName: ws.id,
        installerId: ws.installer,
        adminIds: [ws.admin],
        memberIds: [ws.member],
      });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      const token = r.ok ? String(r.access_token) : "";
      await installs.installations.storeInstallation(
        teamInstall(ws.id, token, { user: { id: ws.installer, token: undefined, scopes: undefined } }),
      );
      await installs.connections.connect(ws.id, {
        apiKey: ws.key,
        baseUrl: h.emulator.baseUrl,
        by: ws.installer,
      });
    }
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("before any 401 both workspaces work and nobody is told anything", async () => {
    expect(await command(A, "groups")).toContain("Subscribe here");
    expect(await command(B, "groups")).toContain("Subscribe here");
    expect(await home(A, A.installer)).not.toContain(REFUSED);
    expect(refusedDms()).toEqual([]);
  });

  it("A's key revoked: A's two admins get one DM each (however many 401s), B and the ops channel nothing", async () => {
    h.emulator.revokeKey(A.key);
    const answer = await command(A, "groups");
    expect(answer).not.toContain("Subscribe here");
    // More 401s of the same incident, from a command and the status probe.
    await command(A, "groups");
    await command(A, "status", A.admin);
    const expected = [
      [A.id, dmChannelOf(A.installer)],
      [A.id, dmChannelOf(A.admin)],
    ].sort();
    await expect.poll(() => refusedDms().sort(), { timeout: 10_000 }).toEqual(expected);
    // B still works and is told nothing; A's member gets no DM; the deployment's ops channel stays silent.
    expect(await command(B, "groups")).toContain("Subscribe here");
    await new Promise((r) => setTimeout(r, 500));
    expect(refusedDms().sort()).toEqual(expected);
    expect(h.slack.posts().filter((c) => c.team === B.id)).toEqual([]);
    expect(h.slack.messages(OPS_CHANNEL)).toEqual([]);
    const dm = h.slack
      .messages(dmChannelOf(A.admin))
      .map((m) => m.text)
      .join("\n");
    expect(dm).toContain("Reconnect");
    expect(dm).not.toContain(A.key);
    expect(dm).toMatch(/<!date\^\d+\^/); // the reader's zone
  });

  it("A's Home shows the banner with Reconnect to admins, the banner alone to members; B's Home none", async () => {
    const adminHome = await home(A, A.admin);
    expect(adminHome).toContain(REFUSED);
    expect(adminHome).toContain("Reconnect");
    expect(adminHome).not.toContain(A.key);
    const memberHome = await home(A, A.member);
    expect(memberHome).toContain(REFUSED);
    expect(memberHome).not.toContain("Reconnect");
    expect(await home(B, B.admin)).not.toContain(REFUSED);
  });

  it("the key working again clears the mark; a new revocation is a new incident (one more DM each)", async () => {
    h.emulator.grantKey(A.key, "all");
    expect(await command(A, "groups")).toContain("Subscribe here");
    await expect
      .poll(async () => (await h.services.installs?.connections.summary(A.id))?.keyRejectedAt)
      .toBeUndefined();
    expect(await home(A, A.admin)).not.toContain(REFUSED);
    h.emulator.revokeKey(A.key);
    await command(A, "groups");
    await expect.poll(() => refusedDms().length, { timeout: 10_000 }).toBe(4);
    expect(refusedDms().every(([team]) => team === A.id)).toBe(true);
  });

  it("Connect with a working key clears the mark at once", async () => {
    const installs = h.services.installs;
    expect((await installs?.connections.summary(A.id))?.keyRejectedAt).toBeDefined();
    h.emulator.grantKey("emu_key_of_workspace_a_0003", "all");
    await installs?.connections.connect(A.id, {
      apiKey: "emu_key_of_workspace_a_0003",
      baseUrl: h.emulator.baseUrl,
      by: A.installer,
    });
    expect((await installs?.connections.summary(A.id))?.keyRejectedAt).toBeUndefined();
    expect(await home(A, A.admin)).not.toContain(REFUSED);
  });
});
