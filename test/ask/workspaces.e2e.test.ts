import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { stateKeys, workspacePrefix } from "../../src/store/keys.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { keysMatching } from "../helpers/keys-under.js";
import { teamInstall } from "../workspaces/fixtures.js";
import { firstSection, mention, nthReply, postEvent, threadMessage, threadStarted } from "./support.js";

const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ab".repeat(32),
};

interface Ws {
  id: string;
  token: string;
  channel: string;
  dm: string;
  group: { id: string; name: string };
}

/*
 * Rule 12 for the assistant: two workspaces of one deployment, each with its own Insight key
 * (A reads every community, B only Lumen DB), its own subscriptions and conversations. Each
 * asks, and sees only what its own connection reads and its own workspace follows.
 */
describe("asking the community in two workspaces of one deployment", () => {
  let h: Harness;
  const A: Ws = {
    id: "T0ALPHA",
    token: "",
    channel: "C0ALPHA",
    dm: "D0ALPHA",
    group: { id: SEED.groups.rides, name: "Saturday Rides" },
  };
  const B: Ws = {
    id: "T0BRAVO",
    token: "",
    channel: "C0BRAVO",
    dm: "D0BRAVO",
    group: { id: SEED.groups.support, name: "Lumen DB Support" },
  };
  const subsOf = (ws: Ws) =>
    new SubscriptionStore(h.services.redis, stateKeys(workspacePrefix(h.config.redis.prefix, ws.id)));

  beforeAll(async () => {
    h = await startHarness({ env: OAUTH_ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      const code = h.slack.oauth.grant({ teamId: ws.id, teamName: ws.id, installerId: "U0ADMIN" });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      ws.token = r.ok ? String(r.access_token) : "";
      await installs.installations.storeInstallation(teamInstall(ws.id, ws.token));
      await installs.connections.connect(ws.id, {
        apiKey: ws === A ? h.emulator.apiKey : h.emulator.limitedKey,
        baseUrl: h.emulator.baseUrl,
        by: "U0ADMIN",
      });
      await subsOf(ws).put({
        channelId: ws.channel,
        groupId: ws.group.id,
        groupName: ws.group.name,
        communityId: undefined,
        filters: {},
        createdBy: "U0ADMIN",
        createdAt: new Date().toISOString(),
      });
    }
  }, 60_000);
  afterAll(async () => h?.stop());

  it("suggests prompts from each workspace's own groups, with its own token", async () => {
    for (const ws of [A, B]) {
      await postEvent(
        h,
        threadStarted({ user: "U0ASKER", dm: ws.dm, threadTs: "1800000000.000100", teamId: ws.id }),
      );
    }
    const prompts = await h.slack.waitFor(() => {
      const calls = h.slack.posts("assistant.threads.setSuggestedPrompts");
      return calls.length >= 2 ? calls : undefined;
    });
    const byTeam = Object.fromEntries(prompts.map((c) => [c.team, JSON.stringify(c.args.prompts)]));
    expect(byTeam[A.id]).toContain("Saturday Rides");
    expect(byTeam[A.id]).not.toContain("Lumen DB Support");
    expect(byTeam[B.id]).toContain("Lumen DB Support");
    expect(byTeam[B.id]).not.toContain("Saturday Rides");
  });

  it("answers each workspace's mention about its own channel's group, posted with its own token", async () => {
    for (const ws of [A, B]) {
      await postEvent(
        h,
        mention({
          user: "U0ASKER",
          channel: ws.channel,
          ts: "1800000001.000100",
          text: "what happened in the last 30 days?",
          teamId: ws.id,
        }),
      );
    }
    for (const ws of [A, B]) {
      const answer = await nthReply(h, ws.channel, "1800000001.000100");
      expect(firstSection(answer)).toMatch(
        new RegExp(`^In \\*${ws.group.name}\\* \\(followed in <#${ws.channel}>\\), `),
      );
      const post = h.slack.posts().find((c) => c.args.channel === ws.channel);
      expect(post?.team).toBe(ws.id);
    }
  });

  it("reads with each workspace's own key, and keeps each conversation under its own keys", async () => {
    // B's key reads only Lumen DB: Saturday Rides does not exist for B, while A reads it.
    for (const ws of [A, B]) {
      await postEvent(
        h,
        threadMessage({
          user: "U0ASKER",
          dm: ws.dm,
          threadTs: "1800000000.000100",
          ts: "1800000002.000100",
          text: "unanswered questions in the Saturday Rides group last month",
          teamId: ws.id,
        }),
      );
    }
    const inA = await nthReply(h, A.dm, "1800000000.000100");
    const inB = await nthReply(h, B.dm, "1800000000.000100");
    expect(firstSection(inA)).toMatch(/^In \*Saturday Rides\*, \w+, unanswered questions:/);
    expect(firstSection(inB)).toBe(
      "No chat group named \"Saturday Rides\" is readable with the app's key. See `/insight groups`.\nAsk again with a group's name, e.g. “unanswered questions in &lt;group name&gt; this week”.",
    );
    const conversations = async (ws: Ws) =>
      (
        await keysMatching(
          h.services.redis,
          `${workspacePrefix(h.config.redis.prefix, ws.id)}:state:ask:thread:*`,
        )
      ).sort();
    expect(await conversations(A)).toEqual([
      `${workspacePrefix(h.config.redis.prefix, A.id)}:state:ask:thread:${A.channel}:1800000001.000100`,
      `${workspacePrefix(h.config.redis.prefix, A.id)}:state:ask:thread:${A.dm}:1800000000.000100`,
    ]);
    expect((await conversations(B)).join()).not.toContain(A.id);
    // A remembers the group its question named; B, whose question was refused, remembers nothing.
    const memory = (ws: Ws) =>
      h.services.redis.hget(
        `${workspacePrefix(h.config.redis.prefix, ws.id)}:state:ask:thread:${ws.dm}:1800000000.000100`,
        "memory",
      );
    expect(JSON.parse((await memory(A)) ?? "{}")).toEqual({
      groups: [{ id: SEED.groups.rides, name: "Saturday Rides" }],
      rangeWords: "last month",
    });
    expect(await memory(B)).toBeNull();
    // Nothing of the assistant lands in the deployment's own (single-workspace) state.
    expect(await keysMatching(h.services.redis, `${h.config.redis.prefix}:state:ask:*`)).toEqual([]);
  });
});
