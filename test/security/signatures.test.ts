import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { interactionBody, postSigned, signSlackRequest, slashCommandBody } from "../helpers/slack-signing.js";

const FORM = "application/x-www-form-urlencoded";

describe("Slack requests: forged and stale signatures get 401 and do nothing", () => {
  let h: Harness;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const url = () => `${h.baseUrl}/slack/events`;
  /** A slash command whose reply would land at its own response URL, so a test can see whether it ran. */
  const command = (text = "help") => {
    const id = `sig-${++n}`;
    return { id, body: slashCommandBody({ text, response_url: h.slack.responseUrl(id) }) };
  };
  const ranAfterAll = async (ids: string[]) => {
    await new Promise((r) => setTimeout(r, 600));
    return h.slack.responses.filter((r) => ids.includes(r.id)).map((r) => r.id);
  };

  it("rejects every forgery of a slash command, and none of them runs", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: { name: string; send: (body: string) => Promise<number> }[] = [
      {
        name: "other secret",
        send: async (b) => (await postSigned(url(), "not-the-signing-secret", b, FORM)).status,
      },
      {
        name: "5 min 1 s old",
        send: async (b) =>
          (await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { timestamp: now - 301 })).status,
      },
      {
        name: "an hour old",
        send: async (b) =>
          (await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { timestamp: now - 3600 })).status,
      },
      {
        name: "empty signature",
        send: async (b) => (await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { signature: "" })).status,
      },
      {
        name: "v1 prefix",
        send: async (b) => {
          const good = signSlackRequest(TEST_SIGNING_SECRET, b)["x-slack-signature"] ?? "";
          return (
            await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { signature: good.replace("v0=", "v1=") })
          ).status;
        },
      },
      {
        name: "signature of another body",
        send: async (b) => {
          const other = signSlackRequest(TEST_SIGNING_SECRET, `${b}&x=1`)["x-slack-signature"] ?? "";
          return (await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { signature: other })).status;
        },
      },
      {
        name: "truncated signature",
        send: async (b) => {
          const good = signSlackRequest(TEST_SIGNING_SECRET, b)["x-slack-signature"] ?? "";
          return (await postSigned(url(), TEST_SIGNING_SECRET, b, FORM, { signature: good.slice(0, -2) }))
            .status;
        },
      },
      {
        name: "no signature headers",
        send: async (b) => {
          const res = await request(url(), { method: "POST", body: b, headers: { "content-type": FORM } });
          await res.body.dump();
          return res.statusCode;
        },
      },
      {
        name: "timestamp not a number",
        send: async (b) => {
          const signed = signSlackRequest(TEST_SIGNING_SECRET, b);
          const res = await request(url(), {
            method: "POST",
            body: b,
            headers: { "content-type": FORM, ...signed, "x-slack-request-timestamp": "soon" },
          });
          await res.body.dump();
          return res.statusCode;
        },
      },
    ];
    // (A timestamp in the future is accepted, as Slack's own check does: only the signing
    // secret can produce one, and a replayed request carries its original, past timestamp.)
    const ids: string[] = [];
    for (const c of cases) {
      const { id, body } = command();
      ids.push(id);
      expect({ case: c.name, status: await c.send(body) }).toEqual({ case: c.name, status: 401 });
    }
    expect(await ranAfterAll(ids)).toEqual([]);
  });

  it("rejects a valid signature replayed with a changed body (the text swapped for another command)", async () => {
    const { id, body } = command("help");
    const signed = signSlackRequest(TEST_SIGNING_SECRET, body);
    const tampered = body.replace("text=help", "text=unsubscribe+everything");
    const res = await request(url(), {
      method: "POST",
      body: tampered,
      headers: { "content-type": FORM, ...signed },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(401);
    expect(await ranAfterAll([id])).toEqual([]);
  });

  it("rejects forged interactions (button clicks) the same way", async () => {
    const payload = {
      type: "block_actions",
      user: { id: "U0EVIL" },
      actions: [{ action_id: "x", value: "y" }],
    };
    const forged = await postSigned(url(), "not-the-signing-secret", interactionBody(payload), FORM);
    expect(forged.status).toBe(401);
    const stale = await postSigned(url(), TEST_SIGNING_SECRET, interactionBody(payload), FORM, {
      timestamp: Math.floor(Date.now() / 1000) - 900,
    });
    expect(stale.status).toBe(401);
  });

  it("accepts the genuine request, at the edge of the 5-minute window too", async () => {
    const fresh = command();
    const ok = await postSigned(url(), TEST_SIGNING_SECRET, fresh.body, FORM);
    expect(ok.status).toBe(200);
    const edge = command();
    const late = await postSigned(url(), TEST_SIGNING_SECRET, edge.body, FORM, {
      timestamp: Math.floor(Date.now() / 1000) - 290,
    });
    expect(late.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === edge.id));
    expect(h.slack.responses.some((r) => r.id === fresh.id)).toBe(true);
  });
});
