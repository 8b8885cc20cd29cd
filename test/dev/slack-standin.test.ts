import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ErrorCode,
  WebClient,
  type WebAPIHTTPError,
  type WebAPIPlatformError,
  type WebAPIRateLimitedError,
  type WebAPIRequestError,
} from "@slack/web-api";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { slackSdkLogger } from "../../src/slack/client.js";
import { silentLogger } from "../../src/log.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { TEST_BOT_TOKEN, useSlackStandIn } from "../helpers/slack.js";

const slack = useSlackStandIn();

/** The SDK's own client, configured as the app configures it (no retries, 429 rejected). */
function webClient(standIn: SlackStandIn, token = TEST_BOT_TOKEN, timeout = 5_000) {
  return new WebClient(token || undefined, {
    slackApiUrl: standIn.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout,
    logger: slackSdkLogger(silentLogger),
  });
}

async function rejection(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error("expected the call to fail");
}

const platformCode = (err: Record<string, unknown>) => (err as unknown as WebAPIPlatformError).data.error;

const header = (text: string) => ({ type: "header", text: { type: "plain_text", text } });
const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

describe("Slack stand-in: auth", () => {
  it("answers auth.test like Slack", async () => {
    const r = await webClient(slack.current).auth.test();
    expect(r).toMatchObject({ ok: true, user_id: "U0BOT", bot_id: "B0BOT", team_id: "T0STANDIN" });
    expect(r.url).toMatch(/^https:\/\/.+\.slack\.com\/$/);
    expect(slack.current.calls[0]).toMatchObject({ method: "auth.test", token: TEST_BOT_TOKEN, ok: true });
  });

  it("answers not_authed without a token and invalid_auth for a non-bot token", async () => {
    const missing = await rejection(webClient(slack.current, "").auth.test());
    expect(platformCode(missing)).toBe("not_authed");
    const userToken = await rejection(webClient(slack.current, "xoxp-123-456").auth.test());
    expect(platformCode(userToken)).toBe("invalid_auth");
  });

  it("accepts the token in the form body as well as the header", async () => {
    const res = await request(`${slack.current.url}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TEST_BOT_TOKEN }).toString(),
    });
    expect(await res.body.json()).toMatchObject({ ok: true, user_id: "U0BOT" });
    expect(slack.current.calls[0]?.args).not.toHaveProperty("token");
  });

  it("accepts only the pinned token when one is configured", async () => {
    const pinned = await startSlackStandIn({ botToken: "xoxb-the-one" });
    try {
      expect((await webClient(pinned, "xoxb-the-one").auth.test()).ok).toBe(true);
      expect(platformCode(await rejection(webClient(pinned, "xoxb-another").auth.test()))).toBe(
        "invalid_auth",
      );
    } finally {
      await pinned.close();
    }
  });
});

describe("Slack stand-in: messages", () => {
  it("gives every post a unique, increasing ts and stores text and blocks", async () => {
    const client = webClient(slack.current);
    const blocks = [header("Refund delays"), section("People report refunds taking *two weeks*.")];
    const tss: string[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await client.chat.postMessage({ channel: "C123", text: `post ${i}`, blocks });
      expect(r.channel).toBe("C123");
      tss.push(r.ts as string);
    }
    for (const ts of tss) expect(ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(new Set(tss).size).toBe(15);
    expect([...tss].sort()).toEqual(tss);

    const stored = slack.current.messages("C123");
    expect(stored).toHaveLength(15);
    expect(stored[0]).toMatchObject({ channel: "C123", text: "post 0", blocks, updates: 0 });
    // blocks arrive as a JSON string in the SDK's form body; the record holds them decoded.
    expect(slack.current.posts()[0]?.args.blocks).toEqual(blocks);
  });

  it("accepts JSON bodies with a Bearer token", async () => {
    const res = await request(`${slack.current.url}chat.postMessage`, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${TEST_BOT_TOKEN}`,
      },
      body: JSON.stringify({ channel: "C9", text: "json body", blocks: [section("hello")] }),
    });
    const body = (await res.body.json()) as { ok: boolean; ts: string };
    expect(body.ok).toBe(true);
    expect(slack.current.messages("C9")[0]).toMatchObject({
      ts: body.ts,
      text: "json body",
      blocks: [section("hello")],
    });
  });

  it("keeps threads, and answers no_text for an empty message", async () => {
    const client = webClient(slack.current);
    const parent = await client.chat.postMessage({ channel: "C1", text: "parent" });
    await client.chat.postMessage({ channel: "C1", text: "reply", thread_ts: parent.ts as string });
    expect(slack.current.messages("C1")[1]).toMatchObject({ text: "reply", thread_ts: parent.ts });
    const err = await rejection(client.apiCall("chat.postMessage", { channel: "C1", text: "" }));
    expect(platformCode(err)).toBe("no_text");
  });

  it("updates by channel and ts, keeping history and counting updates", async () => {
    const client = webClient(slack.current);
    const first = [header("Thread"), section("Summary pending")];
    const posted = await client.chat.postMessage({ channel: "C1", text: "v1", blocks: first });
    const second = [header("Thread"), section("Summary: refunds are slow"), section("Sentiment: negative")];
    const updated = await client.chat.update({
      channel: "C1",
      ts: posted.ts as string,
      text: "v2",
      blocks: second,
    });
    expect(updated).toMatchObject({ ok: true, channel: "C1", ts: posted.ts });
    // text only: blocks are kept, as Slack keeps them when the argument is omitted
    await client.chat.update({ channel: "C1", ts: posted.ts as string, text: "v3" });

    const [msg] = slack.current.messages("C1");
    expect(msg).toMatchObject({ ts: posted.ts, text: "v3", blocks: second, updates: 2 });
    expect(msg?.history.map((h) => h.text)).toEqual(["v1", "v2", "v3"]);
    expect(msg?.history[0]?.blocks).toEqual(first);
    expect(slack.current.messages()).toHaveLength(1);
  });

  it("answers message_not_found when updating, linking or deleting an unknown message", async () => {
    const client = webClient(slack.current);
    const up = await rejection(client.chat.update({ channel: "C1", ts: "1700000000.000100", text: "x" }));
    expect(platformCode(up)).toBe("message_not_found");
    const posted = await client.chat.postMessage({ channel: "C1", text: "to delete" });
    expect(
      (await client.chat.getPermalink({ channel: "C1", message_ts: posted.ts as string })).permalink,
    ).toContain(`/archives/C1/p${(posted.ts as string).replace(".", "")}`);
    await client.chat.delete({ channel: "C1", ts: posted.ts as string });
    expect(slack.current.messages("C1")).toHaveLength(0);
    const again = await rejection(client.chat.delete({ channel: "C1", ts: posted.ts as string }));
    expect(platformCode(again)).toBe("message_not_found");
  });

  it("records ephemerals apart from channel messages", async () => {
    const r = await webClient(slack.current).chat.postEphemeral({
      channel: "C1",
      user: "U42",
      text: "only you",
    });
    expect(r.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(slack.current.ephemerals()).toHaveLength(1);
    expect(slack.current.ephemerals()[0]?.args).toMatchObject({
      channel: "C1",
      user: "U42",
      text: "only you",
    });
    expect(slack.current.messages()).toHaveLength(0);
  });

  it("returns channel history newest first with metadata and cursors", async () => {
    const client = webClient(slack.current);
    for (let i = 0; i < 5; i++) {
      await client.chat.postMessage({
        channel: "C7",
        text: `m${i}`,
        metadata: { event_type: "insight_thread_digest", event_payload: { thread_id: `t${i}` } },
      });
    }
    const page1 = await client.conversations.history({ channel: "C7", limit: 3, include_all_metadata: true });
    expect(page1.messages?.map((m) => m.text)).toEqual(["m4", "m3", "m2"]);
    expect(page1.messages?.[0]?.metadata).toEqual({
      event_type: "insight_thread_digest",
      event_payload: { thread_id: "t4" },
    });
    expect(page1.has_more).toBe(true);
    const page2 = await client.conversations.history({
      channel: "C7",
      limit: 3,
      cursor: page1.response_metadata?.next_cursor as string,
    });
    expect(page2.messages?.map((m) => m.text)).toEqual(["m1", "m0"]);
    expect(page2.messages?.[0]).not.toHaveProperty("metadata");
    expect(page2.has_more).toBe(false);
  });

  it("answers conversations and users lookups", async () => {
    const client = webClient(slack.current);
    expect((await client.conversations.info({ channel: "C55" })).channel).toMatchObject({
      id: "C55",
      is_member: true,
    });
    expect((await client.conversations.join({ channel: "C55" })).channel?.id).toBe("C55");
    expect((await client.users.info({ user: "U77" })).user).toMatchObject({ id: "U77", tz: "UTC" });
  });

  it("answers unknown_method for anything else, and records it", async () => {
    const err = await rejection(
      webClient(slack.current).apiCall("reactions.add", { channel: "C1", name: "tada" }),
    );
    expect(platformCode(err)).toBe("unknown_method");
    expect(slack.current.calls.at(-1)).toMatchObject({
      method: "reactions.add",
      ok: false,
      error: "unknown_method",
    });
  });
});

describe("Slack stand-in: Block Kit limits", () => {
  it("rejects 51 blocks with invalid_blocks and accepts 50", async () => {
    const client = webClient(slack.current);
    const many = (n: number) => Array.from({ length: n }, () => ({ type: "divider" }));
    const err = await rejection(client.chat.postMessage({ channel: "C1", text: "x", blocks: many(51) }));
    expect(platformCode(err)).toBe("invalid_blocks");
    expect((err as unknown as WebAPIPlatformError).data.response_metadata?.messages?.[0]).toContain("50");
    expect((await client.chat.postMessage({ channel: "C1", text: "x", blocks: many(50) })).ok).toBe(true);
  });

  it("rejects a section over 3000 characters and a header over 150", async () => {
    const client = webClient(slack.current);
    const long = await rejection(
      client.chat.postMessage({ channel: "C1", text: "x", blocks: [section("a".repeat(3001))] }),
    );
    expect(platformCode(long)).toBe("invalid_blocks");
    expect((long as unknown as WebAPIPlatformError).data.response_metadata?.messages?.[0]).toContain(
      "json-pointer:/blocks/0/text/text",
    );
    expect(
      (await client.chat.postMessage({ channel: "C1", text: "x", blocks: [section("a".repeat(3000))] })).ok,
    ).toBe(true);
    const head = await rejection(
      client.chat.postMessage({ channel: "C1", text: "x", blocks: [header("h".repeat(151))] }),
    );
    expect(platformCode(head)).toBe("invalid_blocks");
    const empty = await rejection(
      client.chat.postMessage({ channel: "C1", text: "x", blocks: [section("")] }),
    );
    expect(platformCode(empty)).toBe("invalid_blocks");
  });

  it("rejects more than 13,000 characters of blocks and over-long text", async () => {
    const client = webClient(slack.current);
    const blocks = Array.from({ length: 5 }, () => section("b".repeat(2900)));
    const tooLong = await rejection(client.chat.postMessage({ channel: "C1", text: "x", blocks }));
    expect(platformCode(tooLong)).toBe("msg_blocks_too_long");
    const text = await rejection(client.chat.postMessage({ channel: "C1", text: "t".repeat(40_001) }));
    expect(platformCode(text)).toBe("msg_too_long");
  });

  it("applies the limits to chat.update too, leaving the message as it was", async () => {
    const client = webClient(slack.current);
    const posted = await client.chat.postMessage({ channel: "C1", text: "ok", blocks: [section("fine")] });
    const err = await rejection(
      client.chat.update({
        channel: "C1",
        ts: posted.ts as string,
        text: "x",
        blocks: [section("a".repeat(3001))],
      }),
    );
    expect(platformCode(err)).toBe("invalid_blocks");
    expect(slack.current.messages("C1")[0]).toMatchObject({ text: "ok", updates: 0 });
  });
});

describe("Slack stand-in: views", () => {
  const modal = {
    type: "modal" as const,
    title: { type: "plain_text" as const, text: "Subscribe" },
    blocks: [],
  };

  it("opens, pushes, updates and publishes views", async () => {
    const client = webClient(slack.current);
    const opened = await client.views.open({ trigger_id: "123.456.abc", view: modal });
    const id = opened.view?.id as string;
    expect(id).toMatch(/^V/);
    expect(slack.current.views.opened).toHaveLength(1);
    expect(slack.current.views.opened[0]?.args.view).toEqual(modal);

    const updated = await client.views.update({
      view_id: id,
      view: { ...modal, title: { type: "plain_text", text: "Done" } },
    });
    expect(updated.view?.id).toBe(id);
    await client.views.push({ trigger_id: "123.456.def", view: modal });

    const home = { type: "home" as const, blocks: [section("Your subscriptions")] };
    await client.views.publish({ user_id: "U42", view: home });
    expect(slack.current.views.published.get("U42")).toEqual(home);

    const gone = await rejection(client.views.update({ view_id: "V404", view: modal }));
    expect(platformCode(gone)).toBe("not_found");
  });
});

describe("Slack stand-in: file uploads", () => {
  it("stores the bytes sent through the SDK's upload flow", async () => {
    const bytes = Buffer.from("thread_id,title\nt1,Refund delays\n", "utf8");
    await webClient(slack.current).filesUploadV2({
      channel_id: "C1",
      file: bytes,
      filename: "threads.csv",
      title: "Weekly threads",
      initial_comment: "This week's threads",
    });
    const [file] = slack.current.files;
    expect(file).toMatchObject({
      filename: "threads.csv",
      length: bytes.length,
      channel: "C1",
      title: "Weekly threads",
      initialComment: "This week's threads",
      uploaded: true,
      completed: true,
    });
    expect(file?.bytes.equals(bytes)).toBe(true);
    expect(slack.current.calls.map((c) => c.method)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
  });

  it("refuses to complete an upload whose bytes never arrived", async () => {
    const client = webClient(slack.current);
    const got = await client.files.getUploadURLExternal({ filename: "a.txt", length: 3 });
    const err = await rejection(
      client.files.completeUploadExternal({ files: [{ id: got.file_id as string }], channel_id: "C1" }),
    );
    expect(platformCode(err)).toBe("file_not_found");
  });
});

describe("Slack stand-in: response URLs", () => {
  it("records what is POSTed to a response URL", async () => {
    const url = slack.current.responseUrl("cmd-1");
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", text: "3 threads found" }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    expect(slack.current.responses).toEqual([
      { id: "cmd-1", body: { response_type: "ephemeral", text: "3 threads found" }, at: expect.any(Number) },
    ]);
    expect(slack.current.responseUrl()).not.toBe(slack.current.responseUrl());
  });
});

describe("Slack stand-in: injected failures", () => {
  it("answers 429 with Retry-After, which the SDK turns into a rate-limited error", async () => {
    slack.current.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 7 });
    const client = webClient(slack.current);
    const err = await rejection(client.chat.postMessage({ channel: "C1", text: "x" }));
    expect(err.code).toBe(ErrorCode.RateLimitedError);
    expect((err as unknown as WebAPIRateLimitedError).retryAfter).toBe(7);
    // count spent: the next call goes through, and no retry happened in between
    expect((await client.chat.postMessage({ channel: "C1", text: "x" })).ok).toBe(true);
    expect(slack.current.calls.map((c) => c.status)).toEqual([429, 200]);
  });

  it("a 429 for one workspace's token leaves another workspace's calls alone", async () => {
    const tokenOf = (teamId: string) => {
      const code = slack.current.oauth.grant({ teamId, teamName: teamId, installerId: "U0ADMIN" });
      const r = slack.current.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      return r.ok ? String(r.access_token) : "";
    };
    const alpha = webClient(slack.current, tokenOf("T0ALPHA"));
    const bravo = webClient(slack.current, tokenOf("T0BRAVO"));
    slack.current.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 3, team: "T0ALPHA" });
    expect((await bravo.chat.postMessage({ channel: "C1", text: "x" })).ok).toBe(true);
    const err = await rejection(alpha.chat.postMessage({ channel: "C1", text: "x" }));
    expect(err.code).toBe(ErrorCode.RateLimitedError);
    expect(slack.current.calls.map((c) => [c.team, c.status])).toEqual([
      ["T0BRAVO", 200],
      ["T0ALPHA", 429],
    ]);
  });

  it("fails one channel with a Slack error until the app joins it", async () => {
    slack.current.fail.error("chat.postMessage", "not_in_channel", { channel: "C1" });
    const client = webClient(slack.current);
    expect(platformCode(await rejection(client.chat.postMessage({ channel: "C1", text: "x" })))).toBe(
      "not_in_channel",
    );
    expect(platformCode(await rejection(client.chat.postMessage({ channel: "C1", text: "x" })))).toBe(
      "not_in_channel",
    );
    expect((await client.chat.postMessage({ channel: "C2", text: "x" })).ok).toBe(true);
    await client.conversations.join({ channel: "C1" });
    expect((await client.chat.postMessage({ channel: "C1", text: "x" })).ok).toBe(true);
  });

  it("fails a given number of calls with an HTTP 5xx", async () => {
    slack.current.fail.serverError("*", { count: 1, status: 503 });
    const client = webClient(slack.current);
    const err = await rejection(client.auth.test());
    expect(err.code).toBe(ErrorCode.HTTPError);
    expect((err as unknown as WebAPIHTTPError).statusCode).toBe(503);
    expect((await client.auth.test()).ok).toBe(true);
  });

  it("hangs until the client gives up", async () => {
    slack.current.fail.hang("chat.postMessage", { count: 1 });
    const err = await rejection(
      webClient(slack.current, TEST_BOT_TOKEN, 150).chat.postMessage({ channel: "C1", text: "x" }),
    );
    expect(err.code).toBe(ErrorCode.RequestError);
    expect(((err as unknown as WebAPIRequestError).original as Error).name).toBe("TimeoutError");
  });

  it("forgets injected failures on clear and reset", async () => {
    slack.current.fail.error("auth.test", "invalid_auth");
    slack.current.fail.clear();
    expect((await webClient(slack.current).auth.test()).ok).toBe(true);
    slack.current.fail.error("auth.test", "invalid_auth");
    slack.current.reset();
    expect(slack.current.calls).toHaveLength(0);
    expect((await webClient(slack.current).auth.test()).ok).toBe(true);
  });
});

describe("Slack stand-in: waitFor", () => {
  it("resolves with the probe's value once it appears", async () => {
    const client = webClient(slack.current);
    setTimeout(() => void client.chat.postMessage({ channel: "C1", text: "later" }), 30);
    const msg = await slack.current.waitFor(() => slack.current.messages("C1")[0]);
    expect(msg.text).toBe("later");
  });

  it("rejects with a message naming what was seen", async () => {
    await webClient(slack.current).auth.test();
    await expect(slack.current.waitFor(() => false, { timeoutMs: 60, intervalMs: 10 })).rejects.toThrow(
      /not met within 60 ms \(1 calls so far; last: auth\.test\)/,
    );
  });
});

describe("Slack stand-in: printing for the demo", () => {
  it("prints posts and updates as one readable line, and appends blocks to a file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "standin-"));
    const lines: string[] = [];
    const printing = await startSlackStandIn({
      print: true,
      out: (l) => lines.push(l),
      blocksFile: join(dir, "blocks.jsonl"),
    });
    try {
      const client = webClient(printing);
      const blocks = [
        header("Refund delays"),
        section("*Summary*\nRefunds take two weeks."),
        {
          type: "context",
          elements: [
            { type: "mrkdwn", text: "Sentiment: negative" },
            { type: "mrkdwn", text: "12 messages" },
          ],
        },
        { type: "divider" },
      ];
      const posted = await client.chat.postMessage({ channel: "C123", text: "Refund delays", blocks });
      await client.chat.update({
        channel: "C123",
        ts: posted.ts as string,
        text: "Refund delays (edited)",
        blocks: [],
      });
      await request(printing.responseUrl("r1"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "Subscribed", response_type: "in_channel" }),
      }).then((r) => r.body.text());

      expect(lines[0]).toBe(
        "#C123 ← [post] Refund delays / *Summary* Refunds take two weeks. / Sentiment: negative · 12 messages",
      );
      expect(lines[1]).toBe(`#C123 ← [update ${posted.ts}] Refund delays (edited)`);
      expect(lines[2]).toBe("response r1 ← [in_channel] Subscribed");

      const written = readFileSync(join(dir, "blocks.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(written).toHaveLength(2);
      expect(written[0]).toMatchObject({
        method: "chat.postMessage",
        channel: "C123",
        ts: posted.ts,
        blocks,
      });
    } finally {
      await printing.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Slack stand-in: the authorize page of Add to Slack", () => {
  const authorize = async (s: SlackStandIn, params: Record<string, string>) => {
    const url = new URL("../oauth/v2/authorize", s.url);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const res = await request(url, { method: "GET" });
    return {
      status: res.statusCode,
      location: String(res.headers.location ?? ""),
      body: await res.body.text(),
    };
  };
  const APP = {
    client_id: "111.222",
    redirect_uri: "http://127.0.0.1:9/slack/oauth_redirect",
    state: "s.t.ate",
  };

  it("sends the browser back with a code for the chosen workspace, which oauth.v2.access exchanges", async () => {
    const s = await startSlackStandIn({
      oauthClient: { id: "111.222", secret: "shh-0123456789" },
      workspaces: [{ teamId: "T0NORTH", teamName: "North", installerId: "U0NADMIN" }],
    });
    try {
      const r = await authorize(s, { ...APP, team: "T0NORTH" });
      expect(r.status).toBe(302);
      const back = new URL(r.location);
      expect(`${back.origin}${back.pathname}`).toBe(APP.redirect_uri);
      expect(back.searchParams.get("state")).toBe(APP.state);
      const code = back.searchParams.get("code") ?? "";
      const exchange = await webClient(s, "").oauth.v2.access({
        client_id: "111.222",
        client_secret: "shh-0123456789",
        code,
      });
      expect(exchange.team).toEqual({ id: "T0NORTH", name: "North" });
      expect(s.oauth.isAdmin("U0NADMIN")).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("lists the declared workspaces when none is chosen, and says access_denied on cancel", async () => {
    const s = await startSlackStandIn({ workspaces: [{ teamId: "T0SOUTH", teamName: "South & Co" }] });
    try {
      const list = await authorize(s, APP);
      expect(list.status).toBe(200);
      expect(list.body).toContain("South &amp; Co");
      expect(list.body).toContain("team=T0SOUTH");
      const denied = await authorize(s, { ...APP, decision: "deny" });
      expect(new URL(denied.location).searchParams.get("error")).toBe("access_denied");
      expect(new URL(denied.location).searchParams.get("code")).toBeNull();
    } finally {
      await s.close();
    }
  });

  it("refuses another app's client id and an authorize URL without a redirect", async () => {
    const s = await startSlackStandIn({ oauthClient: { id: "111.222", secret: "x" } });
    try {
      expect((await authorize(s, { ...APP, client_id: "999.999", team: "T1" })).status).toBe(400);
      const { redirect_uri: _, ...noRedirect } = APP;
      const r = await authorize(s, { ...noRedirect, team: "T1" });
      expect(r.status).toBe(400);
      expect(r.body).toContain("PUBLIC_URL");
    } finally {
      await s.close();
    }
  });
});

describe("Slack stand-in: users.list", () => {
  it("lists each workspace's own people, page by page as Slack does", async () => {
    const tokenOf = (teamId: string, installerId: string, adminIds: string[], memberIds: string[]) => {
      const code = slack.current.oauth.grant({ teamId, installerId, adminIds, memberIds });
      const r = slack.current.oauth.access({ code }, undefined, Math.floor(Date.now() / 1000));
      return r.ok ? String(r.access_token) : "";
    };
    const a = tokenOf("T0LISTA", "U0AONE", ["U0ATWO"], ["U0ATHREE", "U0AFOUR"]);
    tokenOf("T0LISTB", "U0BONE", [], ["U0BTWO"]);
    const client = webClient(slack.current, a);
    const seen: { id?: string; is_admin?: boolean; is_bot?: boolean; team_id?: string }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await client.users.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...(r.members ?? []));
      cursor = r.response_metadata?.next_cursor || undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen.map((m) => m.id)).toEqual(["U0AONE", "U0ATWO", "U0ATHREE", "U0AFOUR", "U0BOT"]);
    expect(seen.filter((m) => m.is_admin).map((m) => m.id)).toEqual(["U0AONE", "U0ATWO"]);
    expect(seen.find((m) => m.id === "U0BOT")?.is_bot).toBe(true);
    expect(seen.every((m) => m.team_id === "T0LISTA")).toBe(true);
    expect(platformCode(await rejection(client.users.list({ cursor: "bm9wZQ==" })))).toBe("invalid_cursor");
  });
});
