import { DeliveryHealthStore } from "../../src/store/delivery-health.js";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { digestsOf, startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { teamInstall } from "./fixtures.js";

const GROUP = SEED.groups.support;
const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY: "cd".repeat(32),
};
const fixture = readFileSync("test/fixtures/webhooks/chatthread-created.json", "utf8");

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

interface Ws {
  id: string;
  secret: string;
  channel: string;
}

describe("multi-workspace mode while Redis is down: every delivery 2xx, routed once Redis is back", () => {
  let redis: OwnRedis;
  let h: Harness;
  const A: Ws = { id: "T0ALPHA", secret: "", channel: "C0ALPHA" };
  const B: Ws = { id: "T0BRAVO", secret: "", channel: "C0BRAVO" };
  const unroutedDir = () => join(h.config.spoolDir, "unrouted");

  beforeAll(async () => {
    redis = await startOwnRedis();
    h = await startHarness({ redisUrl: redis.url, env: OAUTH_ENV, registerWebhook: false });
    const installs = h.services.installs;
    if (!installs) throw new Error("multi-workspace mode did not start");
    for (const ws of [A, B]) {
      const code = h.slack.oauth.grant({ teamId: ws.id, installerId: "U0ADMIN" });
      const r = h.slack.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      await installs.installations.storeInstallation(teamInstall(ws.id, r.ok ? String(r.access_token) : ""));
      ws.secret = await installs.connections.connect(ws.id, {
        apiKey: h.emulator.apiKey,
        baseUrl: h.emulator.baseUrl,
        by: "U0ADMIN",
      });
      const url = h.slack.responseUrl();
      await postSigned(
        `${h.baseUrl}/slack/events`,
        TEST_SIGNING_SECRET,
        slashCommandBody({
          text: `subscribe ${GROUP}`,
          team_id: ws.id,
          channel_id: ws.channel,
          user_id: "U0ADMIN",
          response_url: url,
        }),
      );
      await h.slack.waitFor(() => h.slack.responses.find((x) => url.endsWith(x.id)));
      h.emulator.webhooks.register({
        url: `${h.baseUrl}/webhooks/insight/${ws.secret}`,
        types: ["chatthread-crud"],
      });
    }
    // A's secret is known to this process (a delivery a moment ago); B's is not.
    expect((await h.deliver(fixture, { secret: A.secret })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await redis?.close();
  });

  it("answers 2xx for a known secret, an unchecked one and a forged one, keeping no secret in clear on disk", async () => {
    const before = h.emulator.webhooks.deliveries().length;
    await redis.stop();
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Sent while Redis was down",
      summary: "Both workspaces follow this group.",
      sentiment: "neutral",
    });
    const forged = await h.deliver(fixture, { secret: "forged-secret-0123456789abcdef" });
    expect(forged.status).toBe(200);
    expect(JSON.parse(forged.body)).toMatchObject({ ok: true, outcome: "spooled" });
    const sent = h.emulator.webhooks.deliveries().slice(before);
    expect(sent.map((d) => d.ok)).toEqual([true, true]);

    // B's delivery is kept under the hash of its secret (A's went to A's own spool).
    const hashOf = (s: string) => createHash("sha256").update(s).digest("hex");
    expect(readdirSync(unroutedDir()).sort()).toEqual(
      [hashOf(B.secret), hashOf("forged-secret-0123456789abcdef")].sort(),
    );
    for (const f of filesUnder(h.config.spoolDir)) {
      const text = readFileSync(f, "utf8");
      for (const secret of [A.secret, B.secret, "forged-secret-0123456789abcdef"])
        expect(text, f).not.toContain(secret);
    }

    await redis.start();
    // Once Redis answers, each workspace's channel gets the thread, once.
    for (const ws of [A, B])
      await h.slack.waitFor(() => digestsOf(h, thread.id, ws.channel)[0], { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(digestsOf(h, thread.id, A.channel)).toHaveLength(1);
    expect(digestsOf(h, thread.id, B.channel)).toHaveLength(1);
    const posts = h.slack.posts().filter((c) => JSON.stringify(c.args).includes(thread.id));
    expect(posts.map((c) => [c.args.channel, c.team]).sort()).toEqual([
      [A.channel, A.id],
      [B.channel, B.id],
    ]);
    // The forged one is a dead letter of the deployment, and nothing is left unrouted.
    await expect
      .poll(
        async () =>
          (await new DeliveryHealthStore(h.services.redis, h.services.keys).deadLetters()).map(
            (d) => d.reason,
          ),
        { timeout: 10_000 },
      )
      .toContain("unknown_secret");
    expect(filesUnder(unroutedDir())).toEqual([]);
  }, 90_000);
});
