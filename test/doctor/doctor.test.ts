import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { freePort } from "../helpers/global-redis.js";
import { testRedisUrl } from "../helpers/redis.js";

const TSX = resolve("node_modules/.bin/tsx");
const DOCTOR = resolve("src/doctor.ts");
const GOOD_TOKEN = "xoxb-doctor-good-token-0123";
const BAD_TOKEN = "xoxb-doctor-bad-token-4567";
const BAD_KEY = "doctor-bad-insight-key-89ab";
const SIGNING = "doctor-signing-secret-cdef";
const WEBHOOK = "doctor-webhook-secret-0123456789";

interface Run {
  code: number;
  out: string;
  lines: string[];
}

/** Runs `npm run doctor`'s script in a directory of its own (so no developer .env is read). */
function doctor(env: Record<string, string>, o: { cwd: string; args?: string[] }): Promise<Run> {
  return new Promise((done) => {
    execFile(
      TSX,
      [DOCTOR, ...(o.args ?? [])],
      { cwd: o.cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        const out = stdout + stderr;
        done({ code, out, lines: out.split("\n") });
      },
    );
  });
}

describe("npm run doctor against the emulator and the stand-in Slack", () => {
  let emulator: Emulator;
  let slack: SlackStandIn;
  let cwd: string;
  let base: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator();
    slack = await startSlackStandIn({ botToken: GOOD_TOKEN });
    cwd = mkdtempSync(join(tmpdir(), "insight-relay-doctor-"));
    base = {
      SLACK_BOT_TOKEN: GOOD_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_API_URL: slack.url,
      INSIGHT_BASE_URL: emulator.baseUrl,
      INSIGHT_API_KEY: emulator.apiKey,
      WEBHOOK_SECRET: WEBHOOK,
      REDIS_URL: testRedisUrl(),
    };
  });
  afterAll(async () => {
    await emulator?.close();
    await slack?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const secretsIn = (out: string, ...secrets: string[]) => secrets.filter((s) => out.includes(s));

  it("all good: one ok line per check, the communities the key reads, the webhook URL; exit 0", async () => {
    const r = await doctor(base, { cwd, args: ["--public-url", "https://relay.example.com/"] });
    expect(r.code).toBe(0);
    expect(r.lines).toContain(
      "ok    configuration: every variable read from the environment (no .env file found) is valid",
    );
    expect(r.out).toMatch(/^ok {4}Redis: redis:\/\/.* answers \(Redis \d+\.\d+/m);
    const insight = r.lines.find((l) => l.startsWith("ok    Insight API key:"));
    expect(insight).toContain("reads 3 communities: Lumen DB (2 chat groups), Riverside Cycling Club");
    expect(insight).toContain("Pocketbook");
    expect(r.out).toMatch(/^ok {4}Slack token: Slack accepts it: bot @\S+ \(U\w+\) in workspace/m);
    // The stand-in is not Slack: said as a warning, which does not fail the run.
    expect(r.out).toMatch(/^warn {2}configuration: SLACK_API_URL is http:\/\/127\.0\.0\.1/m);
    // The one place the webhook secret is shown, on purpose.
    expect(r.lines).toContain(`  https://relay.example.com/webhooks/insight/${WEBHOOK}`);
    expect(r.lines).toContain(
      "  Slack app (slash command, interactivity, events) Request URL: https://relay.example.com/slack/events",
    );
    expect(r.out).toContain("All checks passed (1 warning).");
    expect(secretsIn(r.out, emulator.apiKey, GOOD_TOKEN, SIGNING)).toEqual([]);
    expect(slack.calls.some((c) => c.method === "auth.test" && c.ok)).toBe(true);
  });

  it("a bad API key and a bad Slack token: one FAIL line each saying what to do; exit 1; neither shown", async () => {
    const r = await doctor({ ...base, INSIGHT_API_KEY: BAD_KEY, SLACK_BOT_TOKEN: BAD_TOKEN }, { cwd });
    expect(r.code).toBe(1);
    expect(r.lines).toContain(
      "FAIL  Insight API key: the Insight Service rejected INSIGHT_API_KEY (401): copy a valid key from the service's dashboard into .env",
    );
    expect(r.lines).toContain(
      "FAIL  Slack token: Slack rejected SLACK_BOT_TOKEN (invalid_auth): install the app to your workspace again and copy the Bot User OAuth Token (xoxb-...) into .env",
    );
    expect(r.out).toContain("2 checks failed");
    // Without --public-url: a placeholder host and how to fill it in.
    expect(r.lines).toContain(`  https://<your-host>/webhooks/insight/${WEBHOOK}`);
    expect(r.out).toContain("npm run doctor -- --public-url https://relay.example.com");
    expect(secretsIn(r.out, BAD_KEY, BAD_TOKEN, SIGNING)).toEqual([]);
  });

  it("bad variables fail one line each, the rest is still checked, .env is read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "insight-relay-doctor-env-"));
    try {
      // The limited key may read one community only; it comes from .env, the rest from the environment.
      writeFileSync(
        join(dir, ".env"),
        `INSIGHT_BASE_URL=${emulator.baseUrl}\nINSIGHT_API_KEY=${emulator.limitedKey}\n`,
      );
      const { SLACK_BOT_TOKEN: _t, INSIGHT_BASE_URL: _b, INSIGHT_API_KEY: _k, ...rest } = base;
      const r = await doctor({ ...rest, WEBHOOK_SECRET: "short", LOG_LEVEL: "loud" }, { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.lines).toContain(
        "FAIL  configuration: SLACK_BOT_TOKEN is missing; copy the Bot User OAuth Token (xoxb-...) from your Slack app's OAuth & Permissions page",
      );
      expect(r.lines).toContain(
        "FAIL  configuration: WEBHOOK_SECRET must be at least 16 characters; make one with: openssl rand -hex 24",
      );
      expect(r.out).toMatch(/^FAIL {2}configuration: LOG_LEVEL must be one of .*; use fatal, error/m);
      expect(r.lines).toContain("skip  Slack token: not checked until SLACK_BOT_TOKEN is fixed");
      expect(r.lines.find((l) => l.startsWith("ok    Insight API key:"))).toContain(
        "reads 1 community: Lumen DB (2 chat groups)",
      );
      expect(r.out).toMatch(/^ok {4}Redis:/m);
      // No usable secret: no webhook URL.
      expect(r.out).not.toContain("/webhooks/insight/");
      expect(r.out).toContain("3 checks failed");
      expect(secretsIn(r.out, emulator.limitedKey)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Redis and the service unreachable: one FAIL line each with what to do", async () => {
    const [redisPort, apiPort] = await Promise.all([freePort(), freePort()]);
    const r = await doctor(
      {
        ...base,
        REDIS_URL: `redis://:hunter2-redis-pw@127.0.0.1:${redisPort}`,
        INSIGHT_BASE_URL: `http://127.0.0.1:${apiPort}`,
      },
      { cwd },
    );
    expect(r.code).toBe(1);
    expect(r.lines).toContain(
      `FAIL  Redis: redis://:***@127.0.0.1:${redisPort} does not answer (connect ECONNREFUSED 127.0.0.1:${redisPort}): start Redis (docker compose up -d redis) or set REDIS_URL`,
    );
    expect(r.lines).toContain(
      `FAIL  Insight API key: cannot reach the Insight Service at http://127.0.0.1:${apiPort} (ECONNREFUSED): check INSIGHT_BASE_URL and the network`,
    );
    expect(r.out).not.toContain("hunter2-redis-pw");
  });

  it("rejects a malformed --public-url with exit 2", async () => {
    const r = await doctor(base, { cwd, args: ["--public-url", "relay.example.com"] });
    expect(r.code).toBe(2);
    expect(r.out).toContain("--public-url must be an http(s) URL");
  });
});

describe("npm run doctor in multi-workspace mode", () => {
  const CLIENT = { id: "111.222", secret: "doctor-client-secret-0123" };
  const STATE = "doctor-state-secret-0123456789";
  const KEY = "ab".repeat(32);
  let slack: SlackStandIn;
  let cwd: string;
  let multi: Record<string, string>;

  beforeAll(async () => {
    slack = await startSlackStandIn({ oauthClient: CLIENT });
    cwd = mkdtempSync(join(tmpdir(), "insight-relay-doctor-multi-"));
    multi = {
      SLACK_SIGNING_SECRET: SIGNING,
      SLACK_API_URL: slack.url,
      WEBHOOK_SECRET: WEBHOOK,
      REDIS_URL: testRedisUrl(),
      SLACK_CLIENT_ID: CLIENT.id,
      SLACK_CLIENT_SECRET: CLIENT.secret,
      SLACK_STATE_SECRET: STATE,
      ENCRYPTION_KEY: KEY,
      PUBLIC_URL: "https://relay.example.com",
    };
  });
  afterAll(async () => {
    await slack?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it("checks the OAuth client with Slack, the encryption key and the redirect URL instead of a bot token", async () => {
    const r = await doctor(multi, { cwd });
    expect(r.code).toBe(0);
    expect(r.lines).toContain(
      `ok    Slack OAuth client: Slack knows SLACK_CLIENT_ID ${CLIENT.id} and its secret`,
    );
    expect(r.out).toMatch(/^ok {4}Encryption key: ENCRYPTION_KEY is a 32-byte key \(id [0-9a-f]{8}\)$/m);
    expect(r.lines).toContain(
      "ok    OAuth redirect: add https://relay.example.com/slack/oauth_redirect under OAuth & Permissions > Redirect URLs in the Slack app; people install from https://relay.example.com/slack/install",
    );
    expect(r.out).toMatch(/^skip {2}Insight API key: each workspace connects its own key/m);
    expect(r.out).not.toContain("Slack token");
    expect(r.lines).toContain("  Install link to share: https://relay.example.com/slack/install");
    // No deployment-wide webhook URL in this mode: each workspace has its own.
    expect(r.out).not.toContain(`/webhooks/insight/${WEBHOOK}`);
    expect(r.out).not.toContain(CLIENT.secret);
    expect(r.out).not.toContain(STATE);
    expect(r.out).not.toContain(KEY);
    expect(slack.calls.some((c) => c.method === "oauth.v2.access")).toBe(true);
  });

  it("a wrong client secret and an http PUBLIC_URL fail with what to do", async () => {
    const r = await doctor(
      { ...multi, SLACK_CLIENT_SECRET: "not-the-secret-0000", PUBLIC_URL: "http://relay.example.com" },
      { cwd },
    );
    expect(r.code).toBe(1);
    expect(r.lines).toContain(
      "FAIL  Slack OAuth client: Slack refused the client (invalid_client_id): copy SLACK_CLIENT_ID and SLACK_CLIENT_SECRET from the Slack app's Basic Information page",
    );
    expect(r.out).toMatch(
      /^FAIL {2}OAuth redirect: PUBLIC_URL is http:\/\/relay\.example\.com: Slack accepts only https/m,
    );
    expect(r.out).toContain("2 checks failed");
    expect(r.out).not.toContain("not-the-secret-0000");
  });

  it("an unset PUBLIC_URL fails, and a malformed ENCRYPTION_KEY says how to make one", async () => {
    const { PUBLIC_URL: _unset, ...noUrl } = multi;
    const r = await doctor(noUrl, { cwd });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}OAuth redirect: PUBLIC_URL is not set/m);
    const bad = await doctor({ ...multi, ENCRYPTION_KEY: "too-short" }, { cwd });
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^FAIL {2}configuration: ENCRYPTION_KEY .*openssl rand -hex 32/m);
  });
});
