import { describe, expect, it } from "vitest";
import { formatResult, oneLine } from "../../src/doctor/result.js";
import { shownRedisUrl } from "../../src/doctor/redis-check.js";
import { parsePublicBase, webhookUrl } from "../../src/doctor/webhook-url.js";

describe("doctor helpers", () => {
  it("builds the webhook URL on the public base, or on a placeholder host", () => {
    expect(webhookUrl("abcdefghijklmnop", "https://relay.example.com")).toBe(
      "https://relay.example.com/webhooks/insight/abcdefghijklmnop",
    );
    expect(webhookUrl("abcdefghijklmnop", "https://example.com/relay")).toBe(
      "https://example.com/relay/webhooks/insight/abcdefghijklmnop",
    );
    expect(webhookUrl("abcdefghijklmnop", undefined)).toBe(
      "https://<your-host>/webhooks/insight/abcdefghijklmnop",
    );
  });

  it("accepts only plain http(s) public bases", () => {
    expect(parsePublicBase("https://relay.example.com/")).toBe("https://relay.example.com");
    expect(parsePublicBase("http://10.0.0.5:3000")).toBe("http://10.0.0.5:3000");
    expect(parsePublicBase("relay.example.com")).toBeUndefined();
    expect(parsePublicBase("ftp://relay.example.com")).toBeUndefined();
    expect(parsePublicBase("https://relay.example.com/?x=1")).toBeUndefined();
    expect(parsePublicBase("https://user:pw@relay.example.com")).toBeUndefined();
  });

  it("masks the Redis password", () => {
    expect(shownRedisUrl("redis://:s3cret@redis.internal:6380/2")).toBe("redis://:***@redis.internal:6380/2");
    expect(shownRedisUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });

  it("prints foreign text on one line without terminal control sequences", () => {
    expect(oneLine("Lumen\u001b[31m DB\nSupport\u0007")).toBe("Lumen [31m DB Support");
    expect(oneLine("x".repeat(300), 10)).toBe(`${"x".repeat(9)}…`);
    expect(formatResult({ status: "fail", name: "Redis", text: "down; start it" })).toBe(
      "FAIL  Redis: down; start it",
    );
  });
});
