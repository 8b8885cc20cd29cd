import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";

const valid = {
  SLACK_BOT_TOKEN: "xoxb-1-2-abc",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  INSIGHT_BASE_URL: "https://insight.example.com/",
  INSIGHT_API_KEY: "key-123456",
  WEBHOOK_SECRET: "0123456789abcdef",
};

describe("loadConfig", () => {
  it("applies every default of the operator contract", () => {
    const r = loadConfig(valid);
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config).toMatchObject({
      slack: { apiUrl: "https://slack.com/api/" },
      insight: { baseUrl: "https://insight.example.com", apiVersion: "v1", searchParam: "query" },
      redis: { url: "redis://127.0.0.1:6379", prefix: "insight" },
      port: 3000,
      role: "all",
      spoolDir: "./data/spool",
      adminUserIds: [],
      opsChannelId: undefined,
      adminPassword: undefined,
      reconcileIntervalSeconds: 600,
      weekly: { defaultCron: "0 9 * * 1", defaultTimezone: "UTC" },
      logLevel: "info",
    });
  });

  it("reads every optional variable", () => {
    const r = loadConfig({
      ...valid,
      SLACK_API_URL: "http://127.0.0.1:9999/api",
      INSIGHT_API_VERSION: "v2",
      INSIGHT_SEARCH_PARAM: "q",
      REDIS_URL: "redis://localhost:6380/2",
      REDIS_PREFIX: "staging",
      PORT: "8080",
      ROLE: "worker",
      SPOOL_DIR: "/var/spool/insight",
      ADMIN_USER_IDS: "U111, U222",
      OPS_CHANNEL_ID: "C0OPS",
      ADMIN_PASSWORD: "correct-horse",
      RECONCILE_INTERVAL: "60",
      WEEKLY_DEFAULT_CRON: "30 8 * * 5",
      DEFAULT_TIMEZONE: "Europe/Paris",
      LOG_LEVEL: "debug",
    });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.slack.apiUrl).toBe("http://127.0.0.1:9999/api/");
    expect(r.config.insight).toMatchObject({ apiVersion: "v2", searchParam: "q" });
    expect(r.config.port).toBe(8080);
    expect(r.config.role).toBe("worker");
    expect(r.config.adminUserIds).toEqual(["U111", "U222"]);
    expect(r.config.reconcileIntervalSeconds).toBe(60);
    expect(r.config.weekly).toEqual({ defaultCron: "30 8 * * 5", defaultTimezone: "Europe/Paris" });
  });

  it("names each missing required variable once", () => {
    const r = loadConfig({});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "SLACK_BOT_TOKEN is missing",
      "SLACK_SIGNING_SECRET is missing",
      "INSIGHT_BASE_URL is missing",
      "INSIGHT_API_KEY is missing",
      "WEBHOOK_SECRET is missing",
    ]);
  });

  it("explains malformed values without echoing them", () => {
    const r = loadConfig({
      ...valid,
      SLACK_BOT_TOKEN: "xoxp-user-token-secret",
      WEBHOOK_SECRET: "short-secret",
      PORT: "eighty",
      ROLE: "everything",
      WEEKLY_DEFAULT_CRON: "every monday",
      DEFAULT_TIMEZONE: "Mars/Olympus",
      INSIGHT_BASE_URL: "ftp://x",
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(7);
    expect(r.errors).toContain("WEBHOOK_SECRET must be at least 16 characters");
    expect(r.errors).toContain("PORT must be a whole number");
    expect(r.errors.join("\n")).not.toContain("xoxp-user-token-secret");
    expect(r.errors.join("\n")).not.toContain("short-secret");
    for (const line of r.errors) expect(line).toMatch(/^[A-Z_]+ /);
  });

  it("treats blank values as unset", () => {
    const r = loadConfig({ ...valid, PORT: "", OPS_CHANNEL_ID: "  " });
    expect(r.ok && r.config.port).toBe(3000);
    expect(r.ok && r.config.opsChannelId).toBeUndefined();
  });
});

describe("loadConfig: many workspaces", () => {
  const oauth = {
    SLACK_SIGNING_SECRET: "signing-secret-value",
    WEBHOOK_SECRET: "0123456789abcdef",
    SLACK_CLIENT_ID: "123.456",
    SLACK_CLIENT_SECRET: "client-secret-value",
    SLACK_STATE_SECRET: "state-secret-0123456789",
    ENCRYPTION_KEY: "ab".repeat(32),
  };

  it("is off without the OAuth variables, so single-workspace mode is unchanged", () => {
    const r = loadConfig(valid);
    expect(r.ok && r.config.multiWorkspace).toBeUndefined();
  });

  it("turns on with all three OAuth variables and no longer needs the env token and key", () => {
    const r = loadConfig(oauth);
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.multiWorkspace).toMatchObject({
      clientId: "123.456",
      clientSecret: "client-secret-value",
      stateSecret: "state-secret-0123456789",
    });
    expect(r.config.multiWorkspace?.encryptionKey).toEqual(Buffer.alloc(32, 0xab));
    expect(r.config.slack.botToken).toBe("");
    expect(r.config.insight.apiKey).toBe("");
    expect(r.config.insight.baseUrl).toBe("");
  });

  it("accepts ENCRYPTION_KEY as base64 too", () => {
    const r = loadConfig({ ...oauth, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") });
    expect(r.ok && r.config.multiWorkspace?.encryptionKey).toEqual(Buffer.alloc(32, 7));
  });

  it("reads NEW,OLD while a key is rotated: the first encrypts, the others only decrypt", () => {
    const r = loadConfig({ ...oauth, ENCRYPTION_KEY: `${"cd".repeat(32)}, ${"ab".repeat(32)}` });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.multiWorkspace?.encryptionKey).toEqual(Buffer.alloc(32, 0xcd));
    expect(r.config.multiWorkspace?.previousEncryptionKeys).toEqual([Buffer.alloc(32, 0xab)]);
  });

  it("requires ENCRYPTION_KEY in multi-workspace mode, in one line", () => {
    const r = loadConfig({ ...oauth, ENCRYPTION_KEY: "" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual(["ENCRYPTION_KEY is missing (many workspaces need it to store their tokens)"]);
  });

  it("names the missing member of a partial OAuth trio, and still wants the env token then", () => {
    const r = loadConfig({
      ...valid,
      SLACK_CLIENT_ID: "123.456",
      SLACK_STATE_SECRET: "state-secret-0123456789",
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "SLACK_CLIENT_SECRET is missing (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET are set together for many workspaces)",
    ]);
    const bare = loadConfig({
      SLACK_SIGNING_SECRET: "x",
      WEBHOOK_SECRET: "0123456789abcdef",
      SLACK_CLIENT_ID: "1",
    });
    expect(!bare.ok && bare.errors).toEqual([
      "SLACK_BOT_TOKEN is missing",
      "INSIGHT_BASE_URL is missing",
      "INSIGHT_API_KEY is missing",
      expect.stringMatching(/^SLACK_CLIENT_SECRET is missing/),
      expect.stringMatching(/^SLACK_STATE_SECRET is missing/),
    ]);
  });

  it("explains a malformed ENCRYPTION_KEY without echoing it", () => {
    const r = loadConfig({ ...oauth, ENCRYPTION_KEY: "too-short-key" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (comma-separated while rotating)",
    ]);
    expect(r.errors.join("\n")).not.toContain("too-short-key");
  });

  it("still checks an env bot token when one is given", () => {
    const r = loadConfig({ ...oauth, SLACK_BOT_TOKEN: "xoxp-user" });
    expect(!r.ok && r.errors).toEqual(["SLACK_BOT_TOKEN must be a bot token (xoxb-...)"]);
  });
});
