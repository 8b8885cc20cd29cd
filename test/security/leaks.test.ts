import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { reconcilerDeps } from "../../src/compose/narrow-deps.js";
import { Reconciler } from "../../src/reconcile/reconciler.js";
import {
  startHarness,
  TEST_BOT_TOKEN,
  TEST_SIGNING_SECRET,
  TEST_WEBHOOK_SECRET,
  type Harness,
} from "../helpers/app-harness.js";
import { follow, freshGroup, queuesIdle } from "../reconcile/support.js";

/** Everything the app said: logs, metrics, and every reply, message, view and call it sent to Slack. */
interface Said {
  logs: string;
  metrics: string;
  responses: string;
  messages: string;
  views: string;
  calls: string;
}

async function everythingSaid(h: Harness): Promise<Said> {
  const metrics = await request(`${h.baseUrl}/metrics`);
  const slack = h.slack;
  return {
    logs: h.logLines.join(""),
    metrics: await metrics.body.text(),
    responses: JSON.stringify(slack.responses),
    messages: JSON.stringify(slack.messages()),
    views: JSON.stringify([...slack.views.opened, ...slack.views.published.values()]),
    // Call arguments as sent (the stand-in keeps the token apart, where it belongs).
    calls: JSON.stringify(slack.calls.map((c) => ({ method: c.method, args: c.args, error: c.error }))),
  };
}

function expectNoSecret(said: Said, secrets: Record<string, string>): void {
  const found: string[] = [];
  for (const [where, text] of Object.entries(said)) {
    for (const [name, secret] of Object.entries(secrets)) {
      if (text.includes(secret)) found.push(`${name} in ${where}`);
      // Encoded forms count too: a URL-encoded or JSON-escaped secret is still the secret.
      if (text.includes(encodeURIComponent(secret)) && encodeURIComponent(secret) !== secret)
        found.push(`${name} (encoded) in ${where}`);
    }
  }
  expect(found).toEqual([]);
}

const command = async (h: Harness, text: string) => {
  const before = h.slack.responses.length;
  const r = await h.command(text);
  expect(r.status).toBe(200);
  await h.slack.waitFor(() => h.slack.responses.length > before, { timeoutMs: 15_000 });
};

describe("secrets never appear in logs, metrics or replies", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { LOG_LEVEL: "trace" } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("through commands, deliveries, failures of the API and of Slack, and alerts", async () => {
    for (const text of [
      "",
      "help",
      "groups",
      `subscribe ${SEED.groups.support}`,
      "list",
      "threads",
      "search replica lag",
      "status",
      "nonsense here",
      "subscribe",
      "weekly on 0 9 * * 1 Mars/Olympus",
    ]) {
      await command(h, text);
    }
    // Digests through webhooks; bad deliveries; wrong and odd secrets.
    await h.emulator.createThread(SEED.groups.support, { title: "Leak check", sentiment: "neutral" });
    await h.deliver("{not json");
    await h.deliver({
      webhookType: "chatthread-crud",
      actionType: "created",
      payload: { communityId: "c", timestamp: "x" },
    });
    await h.deliver({}, { secret: "a-wrong-secret-0123456789" });
    // The API failing in every way a command can meet.
    h.emulator.faults.set({ serverError: { count: 50, status: 500 } });
    await command(h, "threads");
    h.emulator.faults.set({ rateLimit: { count: 50, retryAfterSeconds: 0 } });
    await command(h, "search anything");
    h.emulator.faults.set({ down: true });
    await command(h, "status");
    h.emulator.faults.clear();
    // Slack refusing the token: an ops alert names the variable, not its value.
    h.slack.fail.error("chat.postMessage", "invalid_auth", { count: 1 });
    await h.emulator.createThread(SEED.groups.support, { title: "Refused post", sentiment: "neutral" });
    // The webhook-silence alert.
    const group = freshGroup(h);
    await follow(h, group);
    const reconciler = new Reconciler(reconcilerDeps(h.workspace), { settleMs: 0 });
    await reconciler.run();
    await h.emulator.store.addThread(group, { title: "Silent" });
    const hook = h.emulator.webhooks.list()[0];
    if (hook) h.emulator.webhooks.remove(hook.id);
    await new Promise((r) => setTimeout(r, 5));
    await h.emulator.createThread(group, { title: "Missed" });
    expect((await reconciler.run()).incident).toBe("opened");
    await queuesIdle(h);
    for (const path of ["/healthz", "/readyz"]) await (await request(`${h.baseUrl}${path}`)).body.dump();

    const said = await everythingSaid(h);
    // The run did produce all of these (so the search below means something).
    expect(said.logs).toContain("wrong secret");
    expect(said.messages).toContain("SLACK_BOT_TOKEN");
    expect(said.messages).toContain("look stopped");
    expectNoSecret(said, {
      botToken: TEST_BOT_TOKEN,
      signingSecret: TEST_SIGNING_SECRET,
      apiKey: h.emulator.apiKey,
      webhookSecret: TEST_WEBHOOK_SECRET,
    });
  }, 120_000);

  // Regression (fixed in a65f6e3): Express matches routes case-insensitively, and the request
  // line's redaction used to know only the lowercase prefix.
  it("a delivery with an odd-cased path does not put the secret in the logs", async () => {
    const res = await request(`${h.baseUrl}/Webhooks/Insight/${TEST_WEBHOOK_SECRET}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    expect(h.logLines.join("")).not.toContain(TEST_WEBHOOK_SECRET);
  });
});

describe("a key the service rejects (401) is never shown either", () => {
  const BAD_KEY = "bogus-api-key-7d1e0c2f9a";
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { INSIGHT_API_KEY: BAD_KEY, LOG_LEVEL: "trace" } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("in the error replies, the ops alert, the logs and the metrics", async () => {
    for (const text of ["groups", `subscribe ${SEED.groups.support}`, "threads", "search x", "status"]) {
      await command(h, text);
    }
    await queuesIdle(h);
    const said = await everythingSaid(h);
    expect(said.messages + said.responses).toContain("INSIGHT_API_KEY");
    expectNoSecret(said, {
      apiKey: BAD_KEY,
      botToken: TEST_BOT_TOKEN,
      signingSecret: TEST_SIGNING_SECRET,
      webhookSecret: TEST_WEBHOOK_SECRET,
    });
  }, 60_000);
});
