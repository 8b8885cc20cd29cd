import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../../dev/emulator/index.js";
import { webhookEventSchema } from "../../../src/insight/schemas.js";
import { post } from "./http.js";

/* The webhook sender over real HTTP: envelopes of spec 6.2-6.4 and the state machine of section 3. */

const NOW = new Date("2026-03-15T12:00:00.000Z");

interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A real receiver on a random port; `answer` decides its status and how long it waits first. */
class Receiver {
  readonly received: Received[] = [];
  answer: { status: number; delayMs?: number } = { status: 200 };
  private readonly timers = new Set<NodeJS.Timeout>();
  private server!: Server;
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.received.push({
          method: req.method ?? "",
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        });
        const { status, delayMs } = this.answer;
        const reply = () => {
          if (!res.destroyed) res.writeHead(status).end("ok");
        };
        if (!delayMs) return reply();
        const t = setTimeout(reply, delayMs);
        this.timers.add(t);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let emu: Emulator;
const receivers: Receiver[] = [];
const receiver = async () => {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  emu = await startEmulator({ now: () => NOW, webhookTimeoutMs: 1_000 });
});
afterEach(async () => {
  for (const w of emu.webhooks.list()) emu.webhooks.remove(w.id);
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});
afterAll(async () => {
  await emu.close();
});

describe("envelopes", () => {
  it("createThread sends chatthread-crud `created` with exactly the fields of 6.2 and 6.4", async () => {
    const rx = await receiver();
    const { id } = emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] });
    const { thread, deliveries } = await emu.createThread(SEED.groups.support, {
      title: "Replication lag after failover",
    });
    expect(deliveries).toEqual([{ webhookId: id, status: 200, ok: true }]);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]?.method).toBe("POST");
    expect(rx.received[0]?.headers["content-type"]).toBe("application/json");
    expect(rx.received[0]?.body).toEqual({
      webhookType: "chatthread-crud",
      actionType: "created",
      payload: {
        communityId: SEED.communities.primary,
        timestamp: "2026-03-15T12:00:00.000Z",
        threadId: thread.id,
        groupId: SEED.groups.support,
        groupName: "Lumen DB Support",
        title: "Replication lag after failover",
        summary: thread.summary,
        participantCount: thread.participantCount,
        messageCount: thread.messageCount,
      },
    });
    expect(webhookEventSchema.safeParse(rx.received[0]?.body).success).toBe(true);
    expect(emu.store.threads(SEED.groups.support)[0]?.id).toBe(thread.id);
  });

  it("enrichThread updates the thread and sends `updated` (or the action asked for)", async () => {
    const rx = await receiver();
    emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] });
    const target = SEED.threads.injection;
    await emu.enrichThread(SEED.groups.support, target, {
      summary: "Re-enriched summary.",
      sentiment: "positive",
    });
    expect(emu.store.thread(SEED.groups.support, target)?.sentiment).toBe("positive");
    await emu.enrichThread(SEED.groups.support, target, {}, "created");
    expect(rx.received.map((r) => (r.body as { actionType: string }).actionType)).toEqual([
      "updated",
      "created",
    ]);
    expect(rx.received[0]?.body).toMatchObject({
      webhookType: "chatthread-crud",
      payload: { threadId: target, summary: "Re-enriched summary.", groupId: SEED.groups.support },
    });
  });

  it("postMessage sends chatmessage-crud `created` with exactly the fields of 6.3", async () => {
    const rx = await receiver();
    emu.webhooks.register({ url: rx.url, types: ["chatmessage-crud"] });
    const thread = emu.store.threads(SEED.groups.rides)[0];
    if (!thread) throw new Error("seed has no ride threads");
    const { message } = await emu.postMessage(SEED.groups.rides, thread.id, {
      messageText: "Running 10 minutes late, start without me!",
      messageDate: "2026-03-15T11:59:30.000Z",
    });
    expect(rx.received.map((r) => r.body)).toEqual([
      {
        webhookType: "chatmessage-crud",
        actionType: "created",
        payload: {
          communityId: SEED.communities.secondary,
          timestamp: "2026-03-15T12:00:00.000Z",
          messageId: message.id,
          threadId: thread.id,
          groupId: SEED.groups.rides,
          groupName: "Saturday Rides",
          senderId: message.authorInfo.id,
          senderName: message.authorInfo.fullName,
          text: "Running 10 minutes late, start without me!",
          messageTimestamp: "2026-03-15T11:59:30.000Z",
        },
      },
    ]);
    expect(emu.store.thread(SEED.groups.rides, thread.id)?.messageCount).toBe(thread.messageCount + 1);
  });
});

describe("selection", () => {
  it("sends only the types a webhook subscribes to", async () => {
    const rx = await receiver();
    emu.webhooks.register({ url: rx.url, types: ["chatmessage-crud"] });
    expect(await emu.createThread(SEED.groups.support)).toMatchObject({ deliveries: [] });
    expect(rx.received).toHaveLength(0);
  });

  it("fires only for the selected chat groups; no selection means every group", async () => {
    const selected = await receiver();
    const everything = await receiver();
    emu.webhooks.register({ url: selected.url, types: ["chatthread-crud"], groupIds: [SEED.groups.support] });
    emu.webhooks.register({ url: everything.url, types: ["chatthread-crud"] });
    await emu.createThread(SEED.groups.contributors);
    await emu.createThread(SEED.groups.support);
    const groupsOf = (r: Receiver) =>
      r.received.map((x) => (x.body as { payload: { groupId: string } }).payload.groupId);
    expect(groupsOf(selected)).toEqual([SEED.groups.support]);
    expect(groupsOf(everything)).toEqual([SEED.groups.contributors, SEED.groups.support]);
  });
});

describe("state machine (section 3)", () => {
  it("a non-2xx answer disables the webhook and records lastError; nothing more until reEnable", async () => {
    const rx = await receiver();
    rx.answer = { status: 500 };
    const { id } = emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] });
    const first = await emu.createThread(SEED.groups.support);
    expect(first.deliveries).toEqual([
      { webhookId: id, status: 500, ok: false, error: "endpoint answered HTTP 500" },
    ]);
    expect(emu.webhooks.get(id)).toMatchObject({
      state: "disabled",
      lastError: "endpoint answered HTTP 500",
    });

    rx.answer = { status: 200 };
    const whileDisabled = await emu.createThread(SEED.groups.support);
    expect(whileDisabled.deliveries).toEqual([]);
    expect(rx.received).toHaveLength(1);

    expect(emu.webhooks.reEnable(id)?.state).toBe("enabled");
    const after = await emu.createThread(SEED.groups.support);
    expect(after.deliveries).toEqual([{ webhookId: id, status: 200, ok: true }]);
    expect(rx.received).toHaveLength(2);
    expect(emu.webhooks.get(id)?.state).toBe("enabled");
  });

  it("a 3xx or 4xx answer also disables it", async () => {
    const rx = await receiver();
    rx.answer = { status: 302 };
    const a = emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] }).id;
    await emu.createThread(SEED.groups.support);
    expect(emu.webhooks.get(a)?.state).toBe("disabled");
    rx.answer = { status: 404 };
    emu.webhooks.reEnable(a);
    await emu.createThread(SEED.groups.support);
    expect(emu.webhooks.get(a)).toMatchObject({ state: "disabled", lastError: "endpoint answered HTTP 404" });
  });

  it("no answer within webhookTimeoutMs disables it", async () => {
    const rx = await receiver();
    rx.answer = { status: 200, delayMs: 30_000 };
    const { id } = emu.webhooks.register({ url: rx.url, types: ["chatmessage-crud"] });
    const thread = emu.store.threads(SEED.groups.support)[0];
    if (!thread) throw new Error("no thread");
    const { deliveries } = await emu.postMessage(SEED.groups.support, thread.id);
    expect(deliveries).toEqual([
      { webhookId: id, ok: false, error: "endpoint did not answer within 1000 ms" },
    ]);
    expect(emu.webhooks.get(id)).toMatchObject({
      state: "disabled",
      lastError: "endpoint did not answer within 1000 ms",
    });
  });

  it("a refused connection disables it", async () => {
    const rx = await receiver();
    await rx.stop();
    receivers.splice(receivers.indexOf(rx), 1);
    const { id } = emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] });
    const { deliveries } = await emu.createThread(SEED.groups.support);
    expect(deliveries[0]?.ok).toBe(false);
    expect(emu.webhooks.get(id)?.state).toBe("disabled");
    expect(emu.webhooks.get(id)?.lastError).toMatch(/^delivery failed: /);
  });

  it("one failing webhook does not affect another", async () => {
    const bad = await receiver();
    const good = await receiver();
    bad.answer = { status: 503 };
    const b = emu.webhooks.register({ url: bad.url, types: ["chatthread-crud"] }).id;
    const g = emu.webhooks.register({ url: good.url, types: ["chatthread-crud"] }).id;
    await emu.createThread(SEED.groups.support);
    await emu.createThread(SEED.groups.support);
    expect([emu.webhooks.get(b)?.state, emu.webhooks.get(g)?.state]).toEqual(["disabled", "enabled"]);
    expect([bad.received.length, good.received.length]).toEqual([1, 2]);
  });

  it("logs every delivery attempt", async () => {
    const rx = await receiver();
    const { id } = emu.webhooks.register({ url: rx.url, types: ["chatthread-crud"] });
    const before = emu.webhooks.deliveries().length;
    await emu.createThread(SEED.groups.support);
    const log = emu.webhooks.deliveries().slice(before);
    expect(log).toEqual([
      {
        webhookId: id,
        webhookType: "chatthread-crud",
        actionType: "created",
        status: 200,
        ok: true,
        ms: expect.any(Number),
        at: NOW,
      },
    ]);
  });
});

describe("control over HTTP", () => {
  it("registers webhooks, creates threads and messages, and re-enables", async () => {
    const rx = await receiver();
    rx.answer = { status: 500 };
    const reg = await post<{ id: string }>(emu, "/_emulator/webhooks", {
      url: rx.url,
      types: ["chatthread-crud", "chatmessage-crud"],
      groupIds: [SEED.groups.beta],
    });
    expect(reg.status).toBe(201);
    const created = await post<{ thread: { id: string }; deliveries: { ok: boolean }[] }>(
      emu,
      `/_emulator/groups/${SEED.groups.beta}/threads`,
      { title: "Sync fails on iPad", sentiment: "negative" },
    );
    expect(created.status).toBe(201);
    expect(created.body.deliveries).toEqual([
      { webhookId: reg.body.id, status: 500, ok: false, error: expect.any(String) },
    ]);
    expect(emu.webhooks.get(reg.body.id)?.state).toBe("disabled");

    rx.answer = { status: 204 };
    const enabled = await post<{ state: string }>(emu, `/_emulator/webhooks/${reg.body.id}/enable`, {});
    expect(enabled.body.state).toBe("enabled");
    const threadId = created.body.thread.id;
    const enriched = await post(emu, `/_emulator/groups/${SEED.groups.beta}/threads/${threadId}/enrich`, {
      summary: "Sync fails on iPad after the latest build.",
    });
    expect(enriched.body).toEqual({ deliveries: [{ webhookId: reg.body.id, status: 204, ok: true }] });
    const msg = await post(emu, `/_emulator/groups/${SEED.groups.beta}/threads/${threadId}/messages`, {
      messageText: "Same on my iPad Air.",
    });
    expect(msg.status).toBe(201);
    expect(rx.received.map((r) => (r.body as { webhookType: string }).webhookType)).toEqual([
      "chatthread-crud",
      "chatthread-crud",
      "chatmessage-crud",
    ]);
  });

  it("answers 400 for bad bodies and 404 for unknown ids", async () => {
    expect(
      (await post(emu, "/_emulator/webhooks", { url: "not a url", types: ["chatthread-crud"] })).status,
    ).toBe(400);
    expect(
      (await post(emu, "/_emulator/webhooks", { url: "http://x.invalid/", types: ["other"] })).status,
    ).toBe(400);
    expect((await post(emu, "/_emulator/webhooks/wh_999/enable", {})).status).toBe(404);
    expect((await post(emu, "/_emulator/groups/nope/threads", {})).status).toBe(404);
    expect((await post(emu, `/_emulator/groups/${SEED.groups.beta}/threads/nope/enrich`, {})).status).toBe(
      404,
    );
  });
});
