import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { createSlackApi, createSlackWebClient, UPLOAD_STEP_METHOD } from "../../src/slack/client.js";
import { ONLY_IF_MENTIONED } from "../../src/slack/direct-call.js";
import { SlackCallError } from "../../src/slack/errors.js";
import { slackApiFor, slackCallCount, TEST_BOT_TOKEN, useSlackStandIn } from "../helpers/slack.js";

const slack = useSlackStandIn();

async function callError(p: Promise<unknown>): Promise<SlackCallError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SlackCallError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

/** A logger at trace level whose JSON lines land in `lines` (no secret scrubbing configured). */
function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: "trace", destination: { write: (l: string) => void lines.push(l) } });
  return { logger, lines };
}

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

describe("SlackApi over the stand-in", () => {
  it("posts, updates and answers ephemerally, counting each call as ok", async () => {
    const { api, metrics } = slackApiFor(slack.current);
    const posted = await api.postMessage({
      channel: "C1",
      text: "Refund delays",
      blocks: [section("Summary")],
    });
    expect(posted.channel).toBe("C1");
    expect(posted.ts).toMatch(/^\d{10}\.\d{6}$/);
    const updated = await api.update({
      channel: "C1",
      ts: posted.ts,
      text: "Refund delays",
      blocks: [section("Summary, edited")],
    });
    expect(updated).toEqual(posted);
    const eph = await api.postEphemeral({ channel: "C1", user: "U1", text: "Only you can see this" });
    expect(eph.message_ts).toMatch(/^\d{10}\.\d{6}$/);

    expect(slack.current.messages("C1")[0]).toMatchObject({
      updates: 1,
      blocks: [section("Summary, edited")],
    });
    expect(await slackCallCount(metrics, "chat.postMessage", "ok")).toBe(1);
    expect(await slackCallCount(metrics, "chat.update", "ok")).toBe(1);
    expect(await slackCallCount(metrics, "chat.postEphemeral", "ok")).toBe(1);
  });

  it("sends posts and edits as one JSON body with the bearer token, other methods form-encoded", async () => {
    const { api } = slackApiFor(slack.current);
    const posted = await api.postMessage({
      channel: "C1",
      text: "Refund delays",
      blocks: [section("Summary")],
    });
    await api.update({ channel: "C1", ts: posted.ts, text: "Refund delays", blocks: [section("Edited")] });
    await api.authTest();
    expect(slack.current.calls.map((c) => [c.method, c.encoding, c.token])).toEqual([
      ["chat.postMessage", "json", TEST_BOT_TOKEN],
      ["chat.update", "json", TEST_BOT_TOKEN],
      ["auth.test", "form", TEST_BOT_TOKEN],
    ]);
    // Blocks arrive as Slack reads them from JSON, not as a string field to decode.
    expect(slack.current.calls[0]?.args).toMatchObject({ channel: "C1", blocks: [section("Summary")] });
    expect(slack.current.calls[0]?.args).not.toHaveProperty("token");
  });

  // The WebClient writes every answer whole into a debug line, built whatever the level: a
  // page of history with 200 cards cost about 10 ms. Calls go around it, with the same arguments.
  it("reads history as Slack's own client would ask for it, without copying the answer for a log line", async () => {
    const { logger, lines } = capturedLogger();
    const { api } = slackApiFor(slack.current, { logger });
    const posted = await api.postMessage({
      channel: "C7",
      text: "Refund delays",
      blocks: [section("Summary")],
      metadata: { event_type: "insight_digest", event_payload: { thread_id: "t-1" } },
    });
    const calls = slack.current.calls.length;
    const page = await api.call<{ messages?: { ts?: string; metadata?: unknown }[] }>(
      "conversations.history",
      {
        channel: "C7",
        oldest: "0.000000",
        limit: 200,
        include_all_metadata: true,
      },
    );
    expect(page.messages?.map((m) => m.ts)).toEqual([posted.ts]);
    expect(page.messages?.[0]?.metadata).toMatchObject({ event_payload: { thread_id: "t-1" } });
    const history = slack.current.calls.slice(calls);
    expect(history.map((c) => [c.method, c.encoding, c.token])).toEqual([
      ["conversations.history", "form", TEST_BOT_TOKEN],
    ]);
    expect(history[0]?.args).toMatchObject({ channel: "C7", limit: "200", include_all_metadata: "true" });
    // An object argument goes as a JSON-encoded field, as the WebClient sends it.
    await api.postEphemeral({ channel: "C7", user: "U1", text: "Only you", blocks: [section("Only you")] });
    expect(slack.current.calls.at(-1)).toMatchObject({
      encoding: "form",
      args: { blocks: [section("Only you")] },
    });
    expect(lines.filter((l) => l.includes("http request result"))).toEqual([]);
    // The app's own line for each call stays.
    expect(lines.filter((l) => l.includes('"method":"conversations.history"'))).toHaveLength(1);
  });

  it("answers a page of history that cannot hold what the caller looks for without parsing it", async () => {
    const { api, metrics } = slackApiFor(slack.current);
    const card = (threadId: string) => ({
      channel: "C8",
      text: "Refund delays",
      blocks: [section("Summary")],
      metadata: { event_type: "insight_digest", event_payload: { thread_id: threadId } },
    });
    const posted = await api.postMessage(card("thread-41"));
    await api.postMessage(card("thread-42"));
    type Page = { ok?: boolean; messages?: { ts?: string }[] };
    const history = (lookingFor: string) =>
      api.call<Page>("conversations.history", {
        channel: "C8",
        oldest: "0.000000",
        limit: 200,
        include_all_metadata: true,
        [ONLY_IF_MENTIONED]: lookingFor,
      });
    // Mentioned: the page is parsed whole, every message in it.
    const found = await history("thread-41");
    expect(found.messages?.map((m) => m.ts)).toHaveLength(2);
    expect(found.messages?.map((m) => m.ts)).toContain(posted.ts);
    // Not mentioned anywhere in the answer: no messages, and still a successful call.
    expect(await history("thread-43")).toEqual({ ok: true });
    // The symbol is never sent to Slack.
    const sent = slack.current.calls.filter((c) => c.method === "conversations.history");
    expect(sent).toHaveLength(2);
    expect(Object.keys(sent[1]?.args ?? {}).sort()).toEqual([
      "channel",
      "include_all_metadata",
      "limit",
      "oldest",
    ]);
    expect(await slackCallCount(metrics, "conversations.history", "ok")).toBe(2);
    // A refusal is still a refusal: an error answer is read as usual.
    const refused = await callError(
      api.call("conversations.history", { channel: "", [ONLY_IF_MENTIONED]: "thread-43" }),
    );
    expect(refused.classification.code).toBe("channel_not_found");
  });

  it("opens, updates and publishes views and reads auth.test", async () => {
    const { api, metrics } = slackApiFor(slack.current);
    const modal = { type: "modal", title: { type: "plain_text", text: "Weekly summary" }, blocks: [] };
    const opened = await api.openView({ trigger_id: "1.2.abc", view: modal });
    expect(opened.id).toMatch(/^V/);
    const updated = await api.updateView({ view_id: opened.id, hash: opened.hash, view: modal });
    expect(updated.id).toBe(opened.id);
    await api.publishHome({ user_id: "U9", view: { type: "home", blocks: [section("Subscriptions")] } });
    expect(slack.current.views.published.get("U9")).toMatchObject({ type: "home" });
    expect(await api.authTest()).toMatchObject({ user_id: "U0BOT", team_id: "T0STANDIN" });
    expect(await slackCallCount(metrics, "views.update", "ok")).toBe(1);
  });

  it("uploads a file through getUploadURLExternal, the upload URL and completeUploadExternal", async () => {
    const { api, metrics } = slackApiFor(slack.current);
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x41]);
    const { fileId } = await api.uploadFile({
      channel: "C1",
      filename: "summary.bin",
      bytes,
      title: "Weekly summary",
      initialComment: "Attached",
    });
    const file = slack.current.files.find((f) => f.id === fileId);
    expect(file).toMatchObject({
      filename: "summary.bin",
      channel: "C1",
      title: "Weekly summary",
      completed: true,
    });
    expect(file?.bytes.equals(bytes)).toBe(true);
    for (const m of ["files.getUploadURLExternal", UPLOAD_STEP_METHOD, "files.completeUploadExternal"]) {
      expect(await slackCallCount(metrics, m, "ok")).toBe(1);
    }
  });

  it("counts the raw client's typed methods too", async () => {
    const metrics = createMetrics();
    const client = createSlackWebClient({
      token: TEST_BOT_TOKEN,
      apiUrl: slack.current.url,
      logger: capturedLogger().logger,
      metrics,
    });
    await client.chat.postMessage({ channel: "C3", text: "direct" });
    expect(await slackCallCount(metrics, "chat.postMessage", "ok")).toBe(1);
  });
});

describe("SlackApi errors", () => {
  it("throws a permanent SlackCallError for a channel Slack refuses, counted by its code", async () => {
    slack.current.fail.error("chat.postMessage", "channel_not_found", { channel: "C404" });
    const { api, metrics } = slackApiFor(slack.current);
    const err = await callError(api.postMessage({ channel: "C404", text: "x" }));
    expect(err.method).toBe("chat.postMessage");
    expect(err.classification).toEqual({ kind: "permanent", code: "channel_not_found", retryable: false });
    expect(await slackCallCount(metrics, "chat.postMessage", "channel_not_found")).toBe(1);
    expect(await slackCallCount(metrics, "chat.postMessage", "ok")).toBe(0);
  });

  it("turns a 429 into rate_limited with the wait, without retrying on its own", async () => {
    slack.current.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 3 });
    const { api, metrics } = slackApiFor(slack.current);
    const err = await callError(api.postMessage({ channel: "C1", text: "x" }));
    expect(err.classification).toEqual({
      kind: "rate_limited",
      code: "ratelimited",
      retryAfterMs: 3000,
      retryable: true,
    });
    expect(slack.current.calls).toHaveLength(1);
    expect(await slackCallCount(metrics, "chat.postMessage", "ratelimited")).toBe(1);
  });

  it("turns a 5xx into transient after exactly one request", async () => {
    slack.current.fail.serverError("chat.update", { count: 5, status: 502 });
    const { api } = slackApiFor(slack.current);
    const err = await callError(api.update({ channel: "C1", ts: "1.000100", text: "x" }));
    expect(err.classification).toMatchObject({ kind: "transient", code: "http_502" });
    expect(slack.current.calls).toHaveLength(1);
  });

  it("gives up on a hung Slack at the timeout, as transient", async () => {
    slack.current.fail.hang("chat.postMessage", { count: 1 });
    const { api, metrics } = slackApiFor(slack.current, { timeoutMs: 150 });
    const err = await callError(api.postMessage({ channel: "C1", text: "x" }));
    expect(err.classification).toMatchObject({ kind: "transient", code: "timeout" });
    expect(await slackCallCount(metrics, "chat.postMessage", "timeout")).toBe(1);
  });

  it("reports Block Kit rejections as not worth retrying", async () => {
    const { api } = slackApiFor(slack.current);
    const blocks = Array.from({ length: 51 }, () => ({ type: "divider" }));
    const err = await callError(api.postMessage({ channel: "C1", text: "x", blocks }));
    expect(err.classification).toEqual({ kind: "unknown", code: "invalid_blocks", retryable: false });
    const gone = await callError(api.update({ channel: "C1", ts: "1700000000.000100", text: "x" }));
    expect(gone.code).toBe("message_not_found");
  });

  it("classifies a bad token as permanent", async () => {
    const { api } = slackApiFor(slack.current, { token: "xoxp-user-token" });
    const err = await callError(api.authTest());
    expect(err.classification.kind).toBe("permanent");
    expect(err.code).toBe("invalid_auth");
  });

  it("names the upload step when the upload URL fails", async () => {
    slack.current.fail.serverError("upload", { count: 1, status: 500 });
    const { api, metrics } = slackApiFor(slack.current);
    const err = await callError(
      api.uploadFile({ channel: "C1", filename: "a.txt", bytes: Buffer.from("abc"), title: "A" }),
    );
    expect(err.method).toBe(UPLOAD_STEP_METHOD);
    expect(err.classification).toMatchObject({ kind: "transient", code: "http_500" });
    expect(await slackCallCount(metrics, UPLOAD_STEP_METHOD, "http_500")).toBe(1);
    expect(slack.current.calls.map((c) => c.method)).toEqual(["files.getUploadURLExternal"]);
  });
});

describe("SlackApi logging", () => {
  it("logs method, outcome and duration, and never the token", async () => {
    const { logger, lines } = capturedLogger();
    const token = "xoxb-9999999999-8888888888888-verySecretTokenValue1234";
    const api = createSlackApi({ token, apiUrl: slack.current.url, logger, metrics: createMetrics() });
    await api.postMessage({ channel: "C1", text: "hello" });
    slack.current.fail.error("chat.postMessage", "not_in_channel", { channel: "C2" });
    await callError(api.postMessage({ channel: "C2", text: "hello" }));
    const bad = createSlackApi({
      token: "xoxp-not-a-bot-token-5555",
      apiUrl: slack.current.url,
      logger,
      metrics: createMetrics(),
    });
    await callError(bad.authTest());

    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) {
      expect(l).not.toContain(token);
      expect(l).not.toContain("xoxp-not-a-bot-token-5555");
    }
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 20,
        method: "chat.postMessage",
        channel: "C1",
        ok: true,
        durationMs: expect.any(Number),
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 40,
        method: "chat.postMessage",
        channel: "C2",
        ok: false,
        error: "not_in_channel",
        kind: "permanent",
      }),
    );
  });
});
