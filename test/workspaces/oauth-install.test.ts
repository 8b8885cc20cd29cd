import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Redis } from "ioredis";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { silentLogger } from "../../src/log.js";
import { createSlackApp, type SlackAppParts } from "../../src/slack/app.js";
import { CommandRouter } from "../../src/slack/commands/router.js";
import { oauthReceiverOptions } from "../../src/slack/install/oauth-options.js";
import { INSTALL_SCOPES } from "../../src/slack/install/scopes.js";
import { RedisStateStore } from "../../src/slack/install/state-store.js";
import { installKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { Sealer } from "../../src/workspaces/encryption.js";
import { RedisInstallationStore } from "../../src/workspaces/installation-store.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const CLIENT = { id: "111.222", secret: "client-secret-0123456789" };
const STATE_SECRET = "state-secret-0123456789abcdef";

async function get(url: string, cookie?: string) {
  const res = await request(url, { method: "GET", headers: cookie ? { cookie } : {} });
  const setCookie = res.headers["set-cookie"];
  return {
    status: res.statusCode,
    body: await res.body.text(),
    setCookie: Array.isArray(setCookie) ? setCookie.join("; ") : (setCookie ?? ""),
  };
}

describe("Add to Slack over HTTP, against the stand-in's oauth.v2.access", () => {
  let slack: SlackStandIn;
  let redis: Redis;
  let prefix: string;
  let app: SlackAppParts;
  let server: Server;
  let base: string;
  let store: RedisInstallationStore;
  let states: RedisStateStore;
  const installed: string[] = [];

  beforeAll(async () => {
    slack = await startSlackStandIn({ oauthClient: CLIENT });
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
    prefix = uniquePrefix("oauth");
    const keys = installKeys(prefix);
    store = new RedisInstallationStore(redis, keys, new Sealer(Buffer.alloc(32, 9)));
    states = new RedisStateStore(redis, keys.oauthState, STATE_SECRET);
    app = createSlackApp({
      signingSecret: "signing-secret-0123456789",
      botToken: "",
      apiUrl: slack.url,
      logger: silentLogger,
      secrets: [CLIENT.secret, STATE_SECRET],
      resolveWorkspace: async () => true,
      commandsOf: () =>
        new CommandRouter(
          { logger: silentLogger, adminUserIds: [], reportInsightError: async () => undefined },
          [],
        ),
      routes: [],
      oauth: oauthReceiverOptions({
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        apiUrl: slack.url,
        publicUrl: "https://relay.example.com",
        installationStore: store,
        stateStore: states,
        onInstalled: (w) => installed.push(w.id),
      }),
    });
    server = app.http.listen(0);
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await slack.close();
    await dropPrefix(prefix);
    redis.disconnect();
  });

  /** GET /slack/install: the page's Add to Slack link, and the state cookie Bolt set. */
  async function startInstall() {
    const page = await get(`${base}/slack/install`);
    expect(page.status).toBe(200);
    const href = /href="([^"]+)"/.exec(page.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    const url = new URL(href);
    const cookie = /slack-app-oauth-state=[^;]+/.exec(page.setCookie)?.[0] ?? "";
    return { url, state: url.searchParams.get("state") ?? "", cookie };
  }

  it("sends the browser to the authorize page with the manifest's scopes, a signed state and the redirect URL", async () => {
    const { url, state, cookie } = await startInstall();
    expect(`${url.origin}${url.pathname}`).toBe(new URL("../oauth/v2/authorize", slack.url).toString());
    expect(url.searchParams.get("client_id")).toBe(CLIENT.id);
    expect(url.searchParams.get("scope")?.split(",")).toEqual([...INSTALL_SCOPES]);
    expect(url.searchParams.get("redirect_uri")).toBe("https://relay.example.com/slack/oauth_redirect");
    expect(state.split(".")).toHaveLength(3);
    expect(cookie).toContain(state);
  });

  it("installs: exchanges the code, stores the workspace encrypted, and says what to do next", async () => {
    const { state, cookie } = await startInstall();
    const code = slack.oauth.grant({ teamId: "T0ALPHA", teamName: "Alpha & Co", installerId: "U0ANNA" });
    const res = await get(
      `${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`,
      cookie,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain("Insight Relay is installed in Alpha &amp; Co");
    expect(res.body).toContain("<b>Connect</b>");
    expect(res.body).toContain("slack://app?team=T0ALPHA&amp;id=A0STANDIN&amp;tab=home");
    const exchange = slack.calls.find((c) => c.method === "oauth.v2.access");
    expect(exchange?.ok).toBe(true);
    const token = slack.oauth.tokensOf("T0ALPHA")[0] ?? "";
    expect(token).toMatch(/^xoxb-T0ALPHA-/);
    const raw = await redis.hget(installKeys(prefix).installation("T0ALPHA"), "sealed");
    expect(raw).not.toContain(token);
    const back = await store.fetchInstallation({
      teamId: "T0ALPHA",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(back.bot?.token).toBe(token);
    expect(installed).toContain("T0ALPHA");
    // The client secret never reaches a page.
    expect(res.body).not.toContain(CLIENT.secret);

    // The same state again (a replayed redirect): refused, nothing more exchanged.
    const again = await get(
      `${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`,
      cookie,
    );
    expect(again.status).toBe(400);
    expect(again.body).toContain("This install link is not valid");
    expect(slack.calls.filter((c) => c.method === "oauth.v2.access")).toHaveLength(1);
  });

  it("installs org-wide on Enterprise Grid, keyed by the enterprise id", async () => {
    const { state, cookie } = await startInstall();
    const code = slack.oauth.grant({
      enterpriseId: "E0ORG",
      enterpriseName: "Big Org",
      isEnterpriseInstall: true,
    });
    const res = await get(
      `${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`,
      cookie,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain("installed in Big Org");
    expect((await store.list()).map((w) => [w.id, w.enterprise])).toContainEqual(["E0ORG", true]);
  });

  it("says plainly when the person cancelled in Slack", async () => {
    const { state, cookie } = await startInstall();
    const res = await get(`${base}/slack/oauth_redirect?error=access_denied&state=${state}`, cookie);
    expect(res.status).toBe(400);
    expect(res.body).toContain("Installation cancelled");
    expect(res.body).toContain('href="/slack/install"');
  });

  it("refuses a forged state and a state from another browser", async () => {
    const { state, cookie } = await startInstall();
    const forged = `${state.slice(0, -4)}AAAA`;
    const a = await get(
      `${base}/slack/oauth_redirect?code=x&state=${forged}`,
      `slack-app-oauth-state=${forged}`,
    );
    expect(a.body).toContain("This install link is not valid");
    const other = await startInstall();
    const b = await get(`${base}/slack/oauth_redirect?code=x&state=${state}`, other.cookie);
    expect(b.body).toContain("This install link is not valid");
    expect(cookie).toBeTruthy();
  });

  it("says an old install link has expired", async () => {
    const old = await states.generateStateParam({ scopes: [] }, new Date(Date.now() - 11 * 60_000));
    const res = await get(`${base}/slack/oauth_redirect?code=x&state=${old}`, `slack-app-oauth-state=${old}`);
    expect(res.status).toBe(400);
    expect(res.body).toContain("This install link has expired");
  });

  it("rotates a workspace's bot token with its refresh token and stores the new one", async () => {
    const { state, cookie } = await startInstall();
    const code = slack.oauth.grant({
      teamId: "T0ROT",
      installerId: "U0R",
      rotation: { expiresInSeconds: 600 },
    });
    await get(`${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`, cookie);
    const first = await store.fetchInstallation({
      teamId: "T0ROT",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(first.bot?.refreshToken).toMatch(/^xoxe-/);
    // Expiring within two hours: Bolt's authorize refreshes it before use.
    const auth = await app.receiver.installer?.authorize({
      teamId: "T0ROT",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(auth?.botToken).toBeDefined();
    expect(auth?.botToken).not.toBe(first.bot?.token);
    const after = await store.fetchInstallation({
      teamId: "T0ROT",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(after.bot?.token).toBe(auth?.botToken);
    expect(after.bot?.refreshToken).not.toBe(first.bot?.refreshToken);
  });
});
