import { describe, expect, it } from "vitest";
import { failureForError, failureForStatus } from "../../src/insight/failures.js";

describe("failureForStatus", () => {
  it.each([
    [401, "unauthorized", false],
    [403, "forbidden", false],
    [404, "not_found", false],
    [400, "bad_request", false],
    [422, "bad_request", false],
    [301, "bad_request", false],
    [429, "rate_limited", true],
    [500, "server_error", true],
    [502, "server_error", true],
    [503, "server_error", true],
  ] as const)("%i -> %s (retryable: %s)", (status, code, retryable) => {
    const f = failureForStatus(status);
    expect(f?.code).toBe(code);
    expect(f?.retryable).toBe(retryable);
    expect(f?.status).toBe(status);
  });

  it("treats 2xx as success and keeps a Retry-After on retryable failures", () => {
    expect(failureForStatus(200)).toBeUndefined();
    expect(failureForStatus(204)).toBeUndefined();
    expect(failureForStatus(429, 3000)?.retryAfterMs).toBe(3000);
    expect(failureForStatus(503, 1000)?.retryAfterMs).toBe(1000);
  });
});

describe("failureForError", () => {
  const withCode = (code: string) => Object.assign(new Error("boom"), { code });

  it("maps connection failures to retryable network errors", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "UND_ERR_SOCKET",
      "UND_ERR_CONNECT_TIMEOUT",
      "ENOTFOUND",
    ]) {
      expect(failureForError(withCode(code))).toMatchObject({ code: "network", retryable: true });
    }
  });

  it("finds the code inside an AggregateError or a cause chain", () => {
    const agg = Object.assign(new AggregateError([withCode("ECONNREFUSED")], "connect failed"), {
      code: undefined,
    });
    expect(failureForError(agg)).toMatchObject({ code: "network", retryable: true });
    const wrapped = new Error("fetch failed", { cause: withCode("ECONNRESET") });
    expect(failureForError(wrapped).reason).toContain("ECONNRESET");
  });

  it("maps undici's phase timeouts to retryable timeouts", () => {
    expect(failureForError(withCode("UND_ERR_HEADERS_TIMEOUT"))).toMatchObject({
      code: "timeout",
      retryable: true,
    });
    expect(failureForError(withCode("UND_ERR_BODY_TIMEOUT"))).toMatchObject({
      code: "timeout",
      retryable: true,
    });
  });

  it("does not retry errors it does not know (a closed client, a bug)", () => {
    expect(failureForError(withCode("UND_ERR_DESTROYED"))).toMatchObject({
      code: "network",
      retryable: false,
    });
    expect(failureForError(new TypeError("x"))).toMatchObject({ code: "network", retryable: false });
  });
});
