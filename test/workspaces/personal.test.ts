import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { dmChannelOf } from "../../dev/slack-standin/server.js";
import { messageText, startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { teamInstall } from "./fixtures.js";

/*
 * Personal surfaces in multi-workspace mode (rules 12 and 14): a person's watch belongs to their
 * workspace. A delivery to another workspace's webhook never reaches it, even for a thread it
 * would match, and the same person's watches in two workspaces are two lists.
 */

const GROUP = SEED.groups.contributors;
const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "cd".repeat(32),
};
const MAYA = "U0MAYA";

interface Ws {
  id: string;
  token: string;
  secret: string;
}

describe("watches in two workspaces", () => {
  let h: Harness;
  const A: Ws = { id: "T0ALPHA", token: "", secret: "" };
  const B: Ws = { id: "T0BRAVO", token: "", secret: "" };

  async function command(ws: Ws, text: string, user = MAYA): Promise<string> {
    const url = h.slack.responseUrl();
    const id = url.split("/").at(-1) ?? "";
    const body = slashCommandBody({
      text,
      team_id: ws.id,
      channel_id: "C0ANY",
      user_id: user,
      response_url: url,
    });
    expect((await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body)).status).toBe(200);
    const r = await h.slack.waitFor(() => h.slack.responses.find((x) => x.id === id));
    return (r.body as { text: string }).text;
  }

  /** A chatthread-crud delivery for a thread of the emulator, to one workspace's webhook only. */
  async function deliverTo(ws: Ws, threadId: string): Promise<void> {
    const t = h.emulator.store.threads(GROUP).find((x) => x.id === threadId);
    const group = h.emulator.store.group(GROUP);
    const res = await h.deliver(
      {
        webhookType: "chatthread-crud",
        actionType: "created",
        payload: {
          communityId: group?.community,
          timestamp: new Date().toISOString(),
          threadId,
          groupId: GROUP,
          groupName: group?.name,
          title: t?.title,
          summary: t?.summary,
          participantCount: t?.participantCount,
          messageCount: t?.messageCount,
        },
      },
      { secret: ws.secret },
    );
    expect(res.status).toBe(200);
  }

  const dmPosts = () =>
    h.slack.calls.filter((c) => c.method === "chat.postMessage" && c.args.channel === dmChannelOf(MAYA));

  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      const code = h.slack.oauth.grant({ teamId: ws.id, teamName: ws.id, installerId: "U0ADMIN" });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      ws.token = r.ok ? String(r.access_token) : "";
      await installs.installations.storeInstallation(teamInstall(ws.id, ws.token));
      ws.secret = await installs.connections.connect(ws.id, {
        apiKey: h.emulator.apiKey,
        baseUrl: h.emulator.baseUrl,
        by: "U0ADMIN",
      });
    }
  }, 60_000);
  afterAll(async () => h?.stop());

  it("a watch in workspace A: a delivery to B's webhook DMs no one; the same to A's DMs its person with A's token", async () => {
    expect(await command(A, "watch failover drill")).toContain(
      ":telescope: Watching: “failover drill” in any group.",
    );
    // The same person in B has no watch there.
    expect(await command(B, "watch list")).toBe("You watch nothing yet.");
    const thread = h.emulator.store.addThread(GROUP, {
      title: "Failover drill left a replica behind",
      summary: "The monthly failover drill left one replica minutes behind.",
      sentiment: "negative",
    });
    // Neither workspace has a channel on this group: only A's watch wants it.
    await deliverTo(B, thread.id);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(dmPosts()).toEqual([]);

    await deliverTo(A, thread.id);
    const dm = await h.slack.waitFor(() => dmPosts()[0], { timeoutMs: 10_000 });
    expect(dm.team).toBe(A.id);
    const shown = messageText({ text: String(dm.args.text), blocks: (dm.args.blocks as unknown[]) ?? [] });
    expect(shown).toContain("Matches your watch “failover drill”");
    expect(shown).toContain("Failover drill left a replica behind");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(dmPosts()).toHaveLength(1);
  });

  it("each workspace keeps its own watches, its own DMs of a thread and its own pending matches", async () => {
    const alpha = await h.running.workspaces.get(A.id);
    const bravo = await h.running.workspaces.get(B.id);
    expect((await alpha?.watches.list(MAYA))?.map((w) => w.words)).toEqual([["failover", "drill"]]);
    expect(await bravo?.watches.list(MAYA)).toEqual([]);
    const [threadId] = h.emulator.store
      .threads(GROUP)
      .filter((t) => t.title === "Failover drill left a replica behind")
      .map((t) => t.id);
    expect((await alpha?.watchDms.get(MAYA, threadId ?? ""))?.kind).toBe("card");
    expect(await bravo?.watchDms.get(MAYA, threadId ?? "")).toBeUndefined();
  });
});
