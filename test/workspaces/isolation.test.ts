import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { stateKeys, workspacePrefix } from "../../src/store/keys.js";
import { isCluster } from "../../src/store/redis.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { messageText, startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { keysMatching } from "../helpers/keys-under.js";
import { clusterAvailable, startTestCluster, type LocalRedisCluster } from "../helpers/redis-cluster.js";
import { blockActionsPayload } from "../helpers/slack.js";
import { interactionBody, postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { CONNECT_ACTIONS } from "../../src/workspaces/connect-blocks.js";
import { teamInstall } from "./fixtures.js";

const GROUP = SEED.groups.support;
const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "ab".repeat(32),
};

interface Ws {
  id: string;
  token: string;
  secret: string;
  channel: string;
}

/*
 * Rule 12 on both kinds of Redis the app runs on: the same suite on one Redis and on a Redis
 * Cluster of the test's own (3 masters + 3 replicas), where a workspace's keys spread over
 * every master and uninstall must find them all.
 */
const backends = [
  { name: "one Redis", cluster: false },
  ...(clusterAvailable ? [{ name: "a Redis Cluster", cluster: true }] : []),
];

describe.each(backends)(
  "two workspaces following the same chat group never see each other's state, on $name",
  (backend) => {
    let h: Harness;
    let cluster: LocalRedisCluster | undefined;
    const keys = (pattern: string) => keysMatching(h.services.redis, pattern);
    const A: Ws = { id: "T0ALPHA", token: "", secret: "", channel: "C0ALPHA" };
    const B: Ws = { id: "T0BRAVO", token: "", secret: "", channel: "C0BRAVO" };

    const subsOf = (ws: Ws) =>
      new SubscriptionStore(
        h.services.redis,
        stateKeys(workspacePrefix(h.config.redis.prefix, ws.id), { cluster: backend.cluster }),
      );

    async function command(ws: { id: string }, text: string, channel: string, user = "U0ADMIN") {
      const before = h.slack.responses.length;
      const url = h.slack.responseUrl();
      const body = slashCommandBody({
        text,
        team_id: ws.id,
        channel_id: channel,
        user_id: user,
        response_url: url,
      });
      const res = await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body);
      expect(res.status).toBe(200);
      const id = url.split("/").at(-1) ?? "";
      await h.slack.waitFor(
        () => h.slack.responses.length > before && h.slack.responses.find((r) => r.id === id),
      );
      return JSON.stringify(h.slack.responses.find((r) => r.id === id)?.body);
    }

    beforeAll(async () => {
      if (backend.cluster) cluster = await startTestCluster();
      h = await startHarness({
        env: { ...OAUTH_ENV, ...(cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {}) },
        registerWebhook: false,
      });
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
        h.emulator.webhooks.register({
          url: `${h.baseUrl}/webhooks/insight/${ws.secret}`,
          types: ["chatthread-crud", "chatmessage-crud"],
        });
      }
    }, 60_000);
    afterAll(async () => {
      await h?.stop();
      await cluster?.close();
    });

    it("subscribes each workspace in its own state, and each lists only its own", async () => {
      expect(await command(A, `subscribe ${GROUP}`, A.channel)).toContain("Subscribed");
      expect(await command(B, `subscribe ${GROUP}`, B.channel)).toContain("Subscribed");
      expect((await subsOf(A).all()).map((s) => s.channelId)).toEqual([A.channel]);
      expect((await subsOf(B).all()).map((s) => s.channelId)).toEqual([B.channel]);
      // Nothing lands in the deployment's own (single-workspace) state.
      expect(await new SubscriptionStore(h.services.redis, h.services.keys).all()).toEqual([]);
      // B asks about A's channel: B's state has nothing there.
      const listed = await command(B, "list", A.channel);
      expect(listed).not.toContain(GROUP);
    });

    it("a thread of the shared group reaches each workspace's channel once, with that workspace's token", async () => {
      const { thread } = await h.emulator.createThread(GROUP, {
        title: "Shared group, two customers",
        summary: "Both workspaces follow this group.",
        sentiment: "neutral",
        keywords: ["isolation"],
      });
      const inA = await h.slack.waitFor(
        () => h.slack.messages(A.channel).find((m) => messageText(m).includes("Shared group, two customers")),
        { timeoutMs: 10_000 },
      );
      const inB = await h.slack.waitFor(() =>
        h.slack.messages(B.channel).find((m) => messageText(m).includes("Shared group, two customers")),
      );
      expect(inA.ts).not.toBe(inB.ts);
      const posts = h.slack.posts().filter((c) => JSON.stringify(c.args).includes(thread.id));
      expect(posts.map((c) => [c.args.channel, c.team]).sort()).toEqual([
        [A.channel, A.id],
        [B.channel, B.id],
      ]);
      // Each workspace's message refs are its own (recorded just after the post; one hash per channel and period).
      const refs = async (ws: Ws) =>
        (await keys(`${workspacePrefix(h.config.redis.prefix, ws.id)}:state:refs:*`)).join();
      await expect.poll(() => refs(A), { timeout: 5_000 }).toContain(A.channel);
      await expect.poll(() => refs(B), { timeout: 5_000 }).toContain(B.channel);
      expect(await refs(A)).not.toContain(B.channel);
      expect(await refs(B)).not.toContain(A.channel);
      // Each workspace's work logs under its id: an operator can tell whose digest this was.
      const delivered = h.logLines
        .join("")
        .split("\n")
        .filter((l) => l.includes('"digest delivered"') && l.includes(thread.id))
        .map((l) => JSON.parse(l) as { workspace?: string; channel?: string; jobId?: string });
      expect(delivered.map((l) => [l.channel, l.workspace]).sort()).toEqual([
        [A.channel, A.id],
        [B.channel, B.id],
      ]);
      // With many workspaces a card is never sent by the delivery's own job: it takes the Slack
      // queue's fair turns (its job is logged as the one that delivered it).
      const jobIds = delivered.map((l) => l.jobId ?? "");
      const slackJobs = await h.services.queues.slack.getJobs(["completed"]);
      expect(jobIds.every((id) => slackJobs.some((j) => j.id === id))).toBe(true);
    });

    it("a delivery on A's secret acts for A only; an unknown secret is 404", async () => {
      const before = h.slack.posts().length;
      const wrong = await h.deliver({ webhookType: "chatthread-crud" }, { secret: `${A.secret}x` });
      expect(wrong.status).toBe(404);
      // The deployment's own WEBHOOK_SECRET does not work in multi-workspace mode.
      const env = await h.deliver({ webhookType: "chatthread-crud" }, { secret: h.config.webhookSecret });
      expect(env.status).toBe(404);
      expect(h.slack.posts().length).toBe(before);
    });

    it("a forged team id that never installed gets nothing, and touches nobody's state", async () => {
      const res = await postSigned(
        `${h.baseUrl}/slack/events`,
        TEST_SIGNING_SECRET,
        slashCommandBody({
          text: `unsubscribe ${GROUP}`,
          team_id: "T0FORGED",
          channel_id: A.channel,
          response_url: h.slack.responseUrl("forged"),
        }),
      );
      expect(res.status).not.toBe(500);
      await new Promise((r) => setTimeout(r, 300));
      expect(h.slack.responses.find((r) => r.id === "forged")).toBeUndefined();
      expect((await subsOf(A).all()).map((s) => s.channelId)).toEqual([A.channel]);
    });

    it("the Home tab shows each workspace's admin its own webhook URL, and members no URL", async () => {
      const open = (ws: Ws, user: string) =>
        postSigned(
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
            event_id: `Ev0HOME${ws.id}${user}`,
            event_time: 1700000000,
          }),
          "application/json",
        );
      await open(A, "U0ADMIN");
      const home = await h.slack.waitFor(() =>
        h.slack.calls.find(
          (c) => c.method === "views.publish" && c.team === A.id && c.args.user_id === "U0ADMIN",
        ),
      );
      const shown = JSON.stringify(home.args.view);
      expect(shown).toContain("Insight Service connected");
      expect(shown).toContain(`/webhooks/insight/${A.secret}`);
      expect(shown).not.toContain(B.secret);
      expect(shown).not.toContain(h.emulator.apiKey);
      await open(A, "U0MEMBER");
      const member = await h.slack.waitFor(() =>
        h.slack.calls.find(
          (c) => c.method === "views.publish" && c.team === A.id && c.args.user_id === "U0MEMBER",
        ),
      );
      expect(JSON.stringify(member.args.view)).not.toContain(A.secret);
    });

    it("fuzz: forged team ids, altered and reused secrets and mixed payloads never cross over", async () => {
      let seed = 42;
      const rnd = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed % n;
      };
      const forgedTeams = [
        "t0alpha",
        "T0ALPHA ",
        " T0ALPHA",
        "E0ALPHA",
        "T0ALPHAX",
        "T0BRAV",
        "",
        "T0ALPHA\u0000",
      ];
      const badSecrets = [
        A.secret.toUpperCase(),
        `${A.secret}/`,
        A.secret.slice(1),
        encodeURIComponent(`${B.secret} `),
        h.config.webhookSecret,
        `${A.secret}${B.secret}`,
      ];
      const postsBefore = h.slack.posts().length;
      for (let i = 0; i < 40; i++) {
        if (rnd(2) === 0) {
          const team = forgedTeams[rnd(forgedTeams.length)] ?? "";
          const body = slashCommandBody({
            text: rnd(2) ? `unsubscribe ${GROUP}` : `subscribe ${GROUP} --sentiment negative`,
            team_id: team,
            channel_id: rnd(2) ? A.channel : B.channel,
            user_id: "U0ADMIN",
            response_url: h.slack.responseUrl(`fuzz-${i}`),
          });
          await postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body);
        } else {
          const secret = badSecrets[rnd(badSecrets.length)] ?? "";
          const envelope = {
            webhookType: rnd(2) ? "chatthread-crud" : "chatmessage-crud",
            webhookAction: "created",
            payload: { chatgroupId: GROUP, channelId: A.channel, teamId: A.id },
          };
          const res = await h.deliver(envelope, { secret });
          expect(res.status, `secret variant ${badSecrets.indexOf(secret)}`).toBe(404);
        }
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(h.slack.responses.filter((r) => r.id.startsWith("fuzz-"))).toEqual([]);
      expect(h.slack.posts().length).toBe(postsBefore);
      const a = await subsOf(A).all();
      expect(a.map((x) => [x.channelId, x.filters])).toEqual([[A.channel, {}]]);
      expect((await subsOf(B).all()).map((x) => x.channelId)).toEqual([B.channel]);
    });

    it("/metrics counts installed and connected workspaces without naming them", async () => {
      const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
      expect(text).toMatch(/^insight_relay_workspaces\{state="installed"\} 2$/m);
      expect(text).toMatch(/^insight_relay_workspaces\{state="connected"\} 2$/m);
      expect(text).not.toContain(A.id);
      expect(text).not.toContain(B.id);
    });

    it("Home's New webhook secret retires A's URL at once and A's new one acts for A; B's stays; a member's Disconnect does nothing", async () => {
      const press = async (actionId: string, userId: string) => {
        const payload = {
          ...blockActionsPayload({ actionId, userId, channelId: A.channel }),
          user: { id: userId, username: "someone", name: "someone", team_id: A.id },
          team: { id: A.id, domain: "alpha" },
          container: { type: "view", view_id: "V0HOME" },
        };
        const res = await postSigned(
          `${h.baseUrl}/slack/events`,
          TEST_SIGNING_SECRET,
          interactionBody(payload),
        );
        expect(res.status).toBe(200);
      };
      const installs = h.services.installs;
      const old = A.secret;
      const homes = () =>
        h.slack.calls.filter(
          (c) => c.method === "views.publish" && c.team === A.id && c.args.user_id === "U0ADMIN",
        );
      const homesBefore = homes().length;
      await press(CONNECT_ACTIONS.rotate, "U0ADMIN");
      await expect
        .poll(async () => (await installs?.connections.get(A.id))?.webhookSecret, { timeout: 5_000 })
        .not.toBe(old);
      // The Home the button publishes keeps the whole quick help (it once shrank to one line).
      await expect.poll(() => homes().length, { timeout: 5_000 }).toBeGreaterThan(homesBefore);
      const home = JSON.stringify(homes().at(-1)?.args.view);
      expect(home).toContain("`/insight threads [range] [group] [filters]`");
      expect(home).not.toContain("Type `/insight help` in any channel.");
      A.secret = (await installs?.connections.get(A.id))?.webhookSecret ?? "";
      expect((await h.deliver({ webhookType: "chatthread-crud" }, { secret: old })).status).toBe(404);
      expect((await h.deliver({ webhookType: "chatthread-crud" }, { secret: A.secret })).status).toBe(200);
      expect(await installs?.connections.workspaceForSecret(A.secret)).toBe(A.id);
      expect(await installs?.connections.workspaceForSecret(B.secret)).toBe(B.id);

      await press(CONNECT_ACTIONS.disconnect, "U0MEMBER");
      await new Promise((r) => setTimeout(r, 300));
      expect((await installs?.connections.get(A.id))?.webhookSecret).toBe(A.secret);
    });

    it("app_uninstalled deletes that workspace's tokens, connection and state; its queued jobs end without a Slack call", async () => {
      await command(B, "weekly on monday 09:00", B.channel);
      await command(B, `subscribe ${GROUP} --every 4h`, B.channel);
      const digestSchedulersOfB = async () =>
        (await h.services.queues.digest.getJobSchedulers(0, -1)).filter((j) => j.key.includes(B.id));
      expect(await digestSchedulersOfB()).toHaveLength(1);
      const prefixB = workspacePrefix(h.config.redis.prefix, B.id);
      expect((await keys(`${prefixB}:*`)).length).toBeGreaterThan(0);
      const redis = h.services.redis;
      if (isCluster(redis)) {
        // B's keys live on several masters: a SCAN of one node would leave some behind.
        const perMaster = await Promise.all(redis.nodes("master").map((n) => n.keys(`${prefixB}:*`)));
        expect(perMaster.filter((k) => k.length > 0).length).toBeGreaterThan(1);
      }
      const event = JSON.stringify({
        type: "event_callback",
        team_id: B.id,
        api_app_id: "A0STANDIN",
        event: { type: "app_uninstalled", event_ts: "1700000000.000100" },
        event_id: "Ev0UNINSTALL",
        event_time: 1700000000,
      });
      const res = await postSigned(
        `${h.baseUrl}/slack/events`,
        TEST_SIGNING_SECRET,
        event,
        "application/json",
      );
      expect(res.status).toBe(200);
      const installs = h.services.installs;
      await expect.poll(async () => (await keys(`${prefixB}:*`)).length, { timeout: 5_000 }).toBe(0);
      expect(await installs?.installations.has(B.id)).toBe(false);
      expect(await installs?.connections.get(B.id)).toBeUndefined();
      expect(await installs?.connections.workspaceForSecret(B.secret)).toBeUndefined();
      const schedulers = await h.services.queues.weekly.getJobSchedulers(0, -1);
      expect(schedulers.map((j) => j.key).join()).not.toContain(B.id);
      expect(await digestSchedulersOfB()).toEqual([]);
      // B's webhook URL is gone; A is untouched.
      expect((await h.deliver({ webhookType: "chatthread-crud" }, { secret: B.secret })).status).toBe(404);
      expect((await subsOf(A).all()).map((s) => s.channelId)).toEqual([A.channel]);
      expect(await installs?.installations.has(A.id)).toBe(true);

      // A job queued for B before it left: ends, nothing sent with any token.
      const calls = h.slack.calls.length;
      const job = await h.services.queues.slack.add("notice", {
        kind: "notice",
        channelId: B.channel,
        text: "left over",
        workspaceId: B.id,
      } as never);
      await expect.poll(async () => await job.getState(), { timeout: 5_000 }).toBe("completed");
      expect(h.slack.calls.slice(calls).filter((c) => c.method === "chat.postMessage")).toEqual([]);
    });

    it("tokens_revoked: a revoked user token leaves the workspace; a revoked bot token removes it", async () => {
      const installs = h.services.installs;
      const prefixA = workspacePrefix(h.config.redis.prefix, A.id);
      const revoked = async (tokens: { oauth?: string[]; bot?: string[] }, id: string) => {
        const event = JSON.stringify({
          type: "event_callback",
          team_id: A.id,
          api_app_id: "A0STANDIN",
          event: { type: "tokens_revoked", tokens, event_ts: "1700000001.000100" },
          event_id: id,
          event_time: 1700000001,
        });
        const res = await postSigned(
          `${h.baseUrl}/slack/events`,
          TEST_SIGNING_SECRET,
          event,
          "application/json",
        );
        expect(res.status).toBe(200);
      };
      await revoked({ oauth: ["U0ALPHAUSER"] }, "Ev0REVOKEUSER");
      // Give the event its turn, then check nothing of A went.
      await new Promise((r) => setTimeout(r, 300));
      expect(await installs?.installations.has(A.id)).toBe(true);
      expect((await keys(`${prefixA}:*`)).length).toBeGreaterThan(0);

      await revoked({ bot: ["U0ALPHABOT"] }, "Ev0REVOKEBOT");
      await expect.poll(async () => (await keys(`${prefixA}:*`)).length, { timeout: 5_000 }).toBe(0);
      expect(await installs?.installations.has(A.id)).toBe(false);
      expect(await installs?.connections.workspaceForSecret(A.secret)).toBeUndefined();
      expect((await h.deliver({ webhookType: "chatthread-crud" }, { secret: A.secret })).status).toBe(404);
    });
  },
);
