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
