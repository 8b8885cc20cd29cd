import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from "@slack/web-api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyCode,
  classifySlackError,
  describeSlackError,
  isPermanentSlackError,
  SLACK_ERROR_SENTENCES,
  SlackCallError,
} from "../../src/slack/errors.js";

// The SDK's own error classes, built as the WebClient builds them.
const platform = (error: string, retryAfter?: number) =>
  new WebAPIPlatformError({
    ok: false,
    error,
    response_metadata: retryAfter === undefined ? {} : { retryAfter },
  });

describe("classifySlackError", () => {
  it.each([
    "channel_not_found",
    "not_in_channel",
    "is_archived",
    "token_revoked",
    "account_inactive",
    "invalid_auth",
    "not_authed",
    "missing_scope",
    "team_access_not_granted",
    "restricted_action",
    "ekm_access_denied",
  ])("treats %s as permanent", (code) => {
    expect(classifySlackError(platform(code))).toEqual({ kind: "permanent", code, retryable: false });
    expect(isPermanentSlackError(code)).toBe(true);
  });

  it("reads the wait from a rate-limited error, a 429 or a ratelimited body", () => {
    expect(classifySlackError(new WebAPIRateLimitedError(12))).toEqual({
      kind: "rate_limited",
      code: "ratelimited",
      retryAfterMs: 12_000,
      retryable: true,
    });
    const http429 = new WebAPIHTTPError(429, "Too Many Requests", { "retry-after": "3" }, "");
    expect(classifySlackError(http429)).toMatchObject({ kind: "rate_limited", retryAfterMs: 3000 });
    expect(classifySlackError(platform("ratelimited", 5))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 5000,
    });
    // chat.postMessage's documented rate_limited body carries no hint: wait a second at least.
    expect(classifySlackError(platform("rate_limited"))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 1000,
    });
  });

  it("treats 5xx, Slack's internal errors and network failures as transient", () => {
    expect(classifySlackError(new WebAPIHTTPError(503, "Service Unavailable", {}, "down"))).toEqual({
      kind: "transient",
      code: "http_503",
      retryable: true,
    });
    for (const code of ["internal_error", "fatal_error", "service_unavailable", "request_timeout"]) {
      expect(classifySlackError(platform(code)).kind).toBe("transient");
    }
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(classifySlackError(new WebAPIRequestError(refused))).toMatchObject({
      kind: "transient",
      code: "request_error",
    });
    const timedOut = new DOMException("The operation was aborted due to timeout", "TimeoutError");
    expect(classifySlackError(new WebAPIRequestError(timedOut))).toMatchObject({
      kind: "transient",
      code: "timeout",
    });
  });

  it("reports anything else as unknown, and says whether a retry can help", () => {
    expect(classifySlackError(platform("some_new_error"))).toEqual({
      kind: "unknown",
      code: "some_new_error",
      retryable: true,
    });
    expect(classifySlackError(platform("invalid_blocks"))).toEqual({
      kind: "unknown",
      code: "invalid_blocks",
      retryable: false,
    });
    expect(classifySlackError(new WebAPIHTTPError(404, "Not Found", {}, ""))).toMatchObject({
      kind: "unknown",
      code: "http_404",
    });
    expect(classifySlackError(new TypeError("boom"))).toMatchObject({
      kind: "unknown",
      code: "unexpected_error",
    });
    expect(classifySlackError("a string")).toMatchObject({ kind: "unknown", code: "unexpected_error" });
  });

  it("classifies by error code, so another copy of the SDK classifies the same", () => {
    const lookalike = { code: "slack_webapi_platform_error", data: { ok: false, error: "is_archived" } };
    expect(classifySlackError(lookalike)).toMatchObject({ kind: "permanent", code: "is_archived" });
  });

  it("returns a SlackCallError's own classification", () => {
    const e = new SlackCallError(
      "chat.postMessage",
      classifyCode("not_in_channel"),
      platform("not_in_channel"),
    );
    expect(classifySlackError(e)).toBe(e.classification);
    expect(e.message).toBe("Slack chat.postMessage failed: not_in_channel");
    expect(e.code).toBe("not_in_channel");
    expect(e.description).toBe(
      "The app is not in that channel: invite it with /invite @Insight Relay, then resume the subscription.",
    );
  });

  it("agrees with isPermanentSlackError for every code", () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...Object.keys(SLACK_ERROR_SENTENCES)), fc.string()), (code) => {
        const c = classifyCode(code);
        expect(c.kind === "permanent").toBe(isPermanentSlackError(code));
        if (c.kind === "permanent") expect(c.retryable).toBe(false);
        if (c.kind === "rate_limited") expect(c.retryAfterMs).toBeGreaterThan(0);
      }),
    );
  });
});

describe("describeSlackError", () => {
  it("has a sentence for every permanent code", () => {
    const permanent = Object.keys(SLACK_ERROR_SENTENCES).filter(isPermanentSlackError);
    expect(permanent.length).toBeGreaterThanOrEqual(15);
    for (const code of permanent) expect(describeSlackError(code)).not.toMatch(/Slack answered/);
  });

  it("says something plain for HTTP statuses and codes it does not know", () => {
    expect(describeSlackError("http_502")).toBe("Slack had a temporary problem; the app will try again.");
    expect(describeSlackError("http_404")).toBe("Slack answered with HTTP status 404.");
    expect(describeSlackError("brand_new_code")).toBe('Slack answered "brand_new_code".');
  });
});
