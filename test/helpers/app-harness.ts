import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { request } from "undici";
import { loadConfig, type Config } from "../../src/config.js";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../dev/emulator/index.js";
import { createLogger } from "../../src/log.js";
import {
  buildServices,
  closeServices,
  type RuntimeTuning,
  type Services,
} from "../../src/compose/build-services.js";
import { startRoles, type RunningRoles } from "../../src/compose/start-roles.js";
import type { AppWorkspace } from "../../src/compose/app-workspace.js";
import { SINGLE_WORKSPACE_ID } from "../../src/workspaces/workspace-id.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "./redis.js";
import { interactionBody, postSigned, slashCommandBody } from "./slack-signing.js";

export const TEST_SIGNING_SECRET = "test-signing-secret-0123456789";
export const TEST_WEBHOOK_SECRET = "test-webhook-secret-0123456789";
export const TEST_BOT_TOKEN = "xoxb-test-bot-token-0123456789";
export const TEST_CHANNEL = "C0DIGESTS";
export const OPS_CHANNEL = "C0OPS";

/** Fast-moving defaults so end-to-end tests do not wait for production timings. */
export const FAST_TUNING: RuntimeTuning = {
  refreshDelaysMs: [300, 600, 1_200],
  firstPostWaitsMs: [200, 400],
  channelGapMs: 50,
  lookupCacheMs: 200,
  insightTimeoutMs: 2_000,
  insightRetry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, maxTotalMs: 2_000 },
  lockDurationMs: 5_000,
  stalledIntervalMs: 1_000,
  digestLockTtlMs: 3_000,
  // A killed leader's intake lease runs out within seconds, as its BullMQ locks do.
  intakeLeaseMs: 5_000,
  // Tests wait for cards one step at a time: a tenth of production's gathering.
  intakeLingerMs: 100,
  // Workers' incident closed after 10 s of fine looks, not a minute: longer than what a Redis
  // restart leaves behind (seconds), short enough for a test to see it closed.
  workersFineHoldMs: 10_000,
};

export interface Harness {
  emulator: Emulator;
  slack: SlackStandIn;
  services: Services;
  /** The single workspace (its stores, clients and subcommands); single-workspace harnesses only. */
  workspace: AppWorkspace;
  running: RunningRoles;
  config: Config;
  baseUrl: string;
  webhookUrl: string;
  logLines: string[];
  /** Sends a signed /insight command; resolves with the HTTP answer (the ack). */
  command(
    text: string,
    o?: { channel?: string; user?: string },
  ): Promise<{ status: number; body: string; ms: number }>;
  /** Sends a signed interaction payload (button click, view submission). */
  interact(payload: object): Promise<{ status: number; body: string }>;
  /** Posts a raw webhook body to the receiver. */
  deliver(body: unknown, o?: { secret?: string }): Promise<{ status: number; body: string }>;
  subscribe(groupId: string, channel?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startHarness(
  o: {
    env?: Record<string, string>;
    tuning?: RuntimeTuning;
    emulator?: EmulatorOptions;
    redisUrl?: string;
    registerWebhook?: boolean;
  } = {},
): Promise<Harness> {
  const emulator = await startEmulator({ webhookTimeoutMs: 3_000, ...o.emulator });
  const slack = await startSlackStandIn();
  const prefix = uniquePrefix("e2e");
  const spoolDir = mkdtempSync(join(tmpdir(), "insight-relay-spool-"));
  const parsed = loadConfig({
    SLACK_BOT_TOKEN: TEST_BOT_TOKEN,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    INSIGHT_BASE_URL: emulator.baseUrl,
    INSIGHT_API_KEY: emulator.apiKey,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    REDIS_URL: o.redisUrl ?? testRedisUrl(),
    REDIS_PREFIX: prefix,
    PORT: "0",
    SPOOL_DIR: spoolDir,
    OPS_CHANNEL_ID: OPS_CHANNEL,
    LOG_LEVEL: "debug",
    ...o.env,
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const config = parsed.config;
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString("utf8"));
      cb();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination: sink });
  const services = buildServices(config, logger, { ...FAST_TUNING, ...o.tuning });
  const running = await startRoles(services);
  const single = await running.workspaces.get(SINGLE_WORKSPACE_ID);
  const baseUrl = `http://127.0.0.1:${running.port ?? 0}`;
  const webhookUrl = `${baseUrl}/webhooks/insight/${TEST_WEBHOOK_SECRET}`;
  if (o.registerWebhook !== false) {
    emulator.webhooks.register({ url: webhookUrl, types: ["chatthread-crud", "chatmessage-crud"] });
  }

  const h: Harness = {
    emulator,
    slack,
    services,
    get workspace(): AppWorkspace {
      if (!single) throw new Error("this harness runs many workspaces: there is no single one");
      return single;
    },
    running,
    config,
    baseUrl,
    webhookUrl,
    logLines,
    async command(text, c = {}) {
      const body = slashCommandBody({
        text,
        channel_id: c.channel ?? TEST_CHANNEL,
        user_id: c.user ?? "U0ALICE",
        response_url: slack.responseUrl(),
      });
      const started = performance.now();
      const res = await postSigned(
        `${baseUrl}/slack/events`,
        TEST_SIGNING_SECRET,
        body,
        "application/x-www-form-urlencoded",
      );
      return { ...res, ms: performance.now() - started };
    },
    async interact(payload) {
      return postSigned(
        `${baseUrl}/slack/events`,
        TEST_SIGNING_SECRET,
        interactionBody(payload),
        "application/x-www-form-urlencoded",
      );
    },
    async deliver(body, d = {}) {
      const res = await request(`${baseUrl}/webhooks/insight/${d.secret ?? TEST_WEBHOOK_SECRET}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: res.statusCode, body: await res.body.text() };
    },
    async subscribe(groupId, channel = TEST_CHANNEL) {
      const before = slack.responses.length;
      const res = await h.command(`subscribe ${groupId}`, { channel });
      if (res.status !== 200) throw new Error(`subscribe answered ${res.status}`);
      await slack.waitFor(() => slack.responses.length > before, { timeoutMs: 5_000 });
      const sub = await h.workspace.subscriptions.get(channel, groupId);
      if (!sub) throw new Error(`subscribe did not record: ${JSON.stringify(slack.responses.at(-1)?.body)}`);
    },
    async stop() {
      await running.stop();
      await closeServices(services);
      await emulator.close();
      await slack.close();
      await dropPrefix(prefix).catch(() => undefined);
      rmSync(spoolDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Slack-visible text of a stored message: every text field of its blocks, joined. */
export function messageText(m: { text: string; blocks?: unknown[] }): string {
  const out: string[] = [m.text];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "text" && typeof x === "string") out.push(x);
        else walk(x);
      }
    }
  };
  walk(m.blocks ?? []);
  return out.join("\n");
}

/**
 * Starts the app in a child process (test/helpers/app-process.ts) sharing the harness's
 * Redis prefix, emulator and stand-in Slack, with short BullMQ locks so a killed one's jobs
 * come back within seconds. Resolves once it is running. `script`: that file bundled (as
 * `npm run build` bundles the app) instead of app-process.ts under the TypeScript loader.
 */
export function spawnAppProcess(
  h: Harness,
  role: "worker" | "scheduler" | "web" | "all",
  extraEnv: Record<string, string> = {},
  o: { script?: string } = {},
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = o.script ? [o.script] : ["--import", "tsx", "test/helpers/app-process.ts"];
    const child = spawn(process.execPath, args, {
      env: {
        ...process.env,
        SLACK_BOT_TOKEN: h.config.slack.botToken,
        SLACK_SIGNING_SECRET: h.config.slack.signingSecret,
        SLACK_API_URL: h.config.slack.apiUrl,
        INSIGHT_BASE_URL: h.config.insight.baseUrl,
        INSIGHT_API_KEY: h.config.insight.apiKey,
        WEBHOOK_SECRET: h.config.webhookSecret,
        REDIS_URL: h.config.redis.url,
        REDIS_PREFIX: h.config.redis.prefix,
        ...(h.config.redis.clusterNodes
          ? { REDIS_CLUSTER_NODES: h.config.redis.clusterNodes.map((n) => `${n.host}:${n.port}`).join(",") }
          : {}),
        LOG_LEVEL: "warn",
        ROLE: role,
        TEST_TUNING: JSON.stringify({ ...FAST_TUNING, lockDurationMs: 2_000, stalledIntervalMs: 500 }),
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("app-ready")) resolve(child);
    });
    child.once("exit", (code, signal) => reject(new Error(`app process (${role}) exited ${code ?? signal}`)));
  });
}

/** The digests of one thread in one channel of the stand-in Slack, found by message metadata. */
export function digestsOf(h: Harness, threadId: string, channel = TEST_CHANNEL) {
  return h.slack
    .messages(channel)
    .filter(
      (m) =>
        (m.metadata as { event_payload?: { thread_id?: string } } | undefined)?.event_payload?.thread_id ===
        threadId,
    );
}
