import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, ExpressReceiver, isValidSlackRequest, verifySlackRequest } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { slackSdkLogger } from "../../src/slack/client.js";
import { blockActionsPayload, TEST_BOT_TOKEN, useSlackStandIn } from "./slack.js";
import { interactionBody, postSigned, signSlackRequest, slashCommandBody } from "./slack-signing.js";

// Slack's documented example (https://api.slack.com/authentication/verifying-requests-from-slack).
const DOC_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const DOC_TIMESTAMP = 1531420618;
const DOC_BODY =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar" +
  "&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com" +
  "%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const DOC_SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

describe("signSlackRequest", () => {
  it("reproduces Slack's documented signature", () => {
    expect(signSlackRequest(DOC_SECRET, DOC_BODY, DOC_TIMESTAMP)).toEqual({
      "x-slack-signature": DOC_SIGNATURE,
      "x-slack-request-timestamp": "1531420618",
    });
  });

  it("is accepted by Bolt's own verification, and a changed byte is not", () => {
    const body = slashCommandBody({ text: "search refund delays" });
    const ts = 1_732_190_000;
    const h = signSlackRequest("a-signing-secret", body, ts);
    const headers = { "x-slack-signature": h["x-slack-signature"] ?? "", "x-slack-request-timestamp": ts };
    expect(() =>
      verifySlackRequest({
        signingSecret: "a-signing-secret",
        body,
        headers,
        nowMilliseconds: ts * 1000 + 2000,
      }),
    ).not.toThrow();
    expect(
      isValidSlackRequest({
        signingSecret: "a-signing-secret",
        body: `${body}x`,
        headers,
        nowMilliseconds: ts * 1000,
      }),
    ).toBe(false);
    expect(
      isValidSlackRequest({ signingSecret: "another-secret", body, headers, nowMilliseconds: ts * 1000 }),
    ).toBe(false);
  });
});

describe("request bodies", () => {
  it("builds a slash command body with Slack's fields", () => {
    const form = new URLSearchParams(
      slashCommandBody({ text: "threads last30Days", channel_id: "C42", response_url: "http://x/r" }),
    );
    expect(Object.fromEntries(form)).toMatchObject({
      command: "/insight",
      text: "threads last30Days",
      channel_id: "C42",
      user_id: "U0TESTUSER",
      team_id: "T0STANDIN",
      response_url: "http://x/r",
    });
    expect(form.get("trigger_id")).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
  });

  it("wraps an interaction payload in the payload field", () => {
    const payload = blockActionsPayload({ actionId: "share", value: "t1" });
    const form = new URLSearchParams(interactionBody(payload));
    expect(JSON.parse(form.get("payload") ?? "null")).toEqual(payload);
  });
});

describe("postSigned against a real Bolt app", () => {
  const SECRET = "test-signing-secret-0123456789";
  const slack = useSlackStandIn();
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const logger = slackSdkLogger(silentLogger);
    const receiver = new ExpressReceiver({ signingSecret: SECRET, logger });
    const app = new App({
      token: TEST_BOT_TOKEN,
      receiver,
      logger,
      clientOptions: { slackApiUrl: slack.current.url, retryConfig: { retries: 0 } },
    });
    app.command("/insight", async ({ ack, respond, command }) => {
      await ack();
      await respond({ response_type: "ephemeral", text: `You asked: ${command.text}` });
    });
    server = (await receiver.start(0)) as Server;
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it("is accepted, and the command's reply reaches the response URL", async () => {
    const body = slashCommandBody({ text: "help", response_url: slack.current.responseUrl("cmd-1") });
    const res = await postSigned(url, SECRET, body);
    expect(res.status).toBe(200);
    const reply = await slack.current.waitFor(() => slack.current.responses.find((r) => r.id === "cmd-1"));
    expect(reply.body).toMatchObject({ text: "You asked: help" });
  });

  it("is refused with a wrong signature or a stale timestamp", async () => {
    const body = slashCommandBody({ text: "help", response_url: slack.current.responseUrl("cmd-2") });
    expect((await postSigned(url, SECRET, body, undefined, { signature: "v0=deadbeef" })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    expect((await postSigned(url, SECRET, body, undefined, { timestamp: stale })).status).toBe(401);
    expect((await postSigned(url, "not-the-secret", body)).status).toBe(401);
    expect(slack.current.responses).toHaveLength(0);
  });
});
