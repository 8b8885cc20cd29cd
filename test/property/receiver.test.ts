import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { waitUntil } from "../reconcile/support.js";
import { hostileText, isoDate } from "./arbitraries.js";

/** A valid envelope of either type, with arbitrary (hostile) text in every free field. */
const validEvent = fc.oneof(
  fc.record({
    webhookType: fc.constant("chatthread-crud"),
    actionType: fc.constantFrom("created", "updated"),
    payload: fc.record({
      communityId: fc.string({ minLength: 1, maxLength: 40 }),
      timestamp: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      threadId: fc.string({ minLength: 1, maxLength: 40 }),
      groupId: fc.string({ minLength: 1, maxLength: 40 }),
      groupName: hostileText(3),
      title: hostileText(),
      summary: hostileText(20),
      participantCount: fc.nat(),
      messageCount: fc.nat(),
    }),
  }),
  fc.record({
    webhookType: fc.constant("chatmessage-crud"),
    actionType: fc.constantFrom("created", "updated"),
    payload: fc.record({
      communityId: fc.string({ minLength: 1, maxLength: 40 }),
      timestamp: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      messageId: fc.string({ minLength: 1, maxLength: 40 }),
      threadId: fc.string({ maxLength: 40 }),
      groupId: fc.string({ minLength: 1, maxLength: 40 }),
      groupName: hostileText(3),
      senderId: fc.string(),
      senderName: hostileText(3),
      text: hostileText(20),
      messageTimestamp: isoDate,
    }),
  }),
);

type Obj = Record<string, unknown>;

/** One small change that makes a valid delivery invalid, unknown or odd. */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant("drop" as const),
    at: fc.constantFrom(
      "webhookType",
      "actionType",
      "payload",
      "payload.communityId",
      "payload.timestamp",
      "payload.threadId",
      "payload.groupId",
      "payload.messageId",
    ),
  }),
  fc.record({
    kind: fc.constant("set" as const),
    at: fc.constantFrom(
      "webhookType",
      "actionType",
      "payload",
      "payload.timestamp",
      "payload.groupId",
      "payload.title",
      "payload.messageCount",
      "extra",
    ),
    value: fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.nat()),
      fc.dictionary(fc.string(), fc.string()),
      fc.constant("__proto__"),
    ),
  }),
  fc.record({ kind: fc.constant("wrap" as const) }),
);

type Mutation = { kind: "drop"; at: string } | { kind: "set"; at: string; value: unknown } | { kind: "wrap" };

function mutate(event: Obj, m: Mutation): unknown {
  if (m.kind === "wrap") return [event];
  const copy = structuredClone(event);
  const path = m.at.split(".");
  let target: Obj = copy;
  for (const k of path.slice(0, -1)) {
    const next = target[k];
    if (!next || typeof next !== "object") return copy;
    target = next as Obj;
  }
  const last = path.at(-1) ?? "";
  if (m.kind === "drop") delete target[last];
  else target[last] = m.value;
  return copy;
}

const nearValid = fc
  .tuple(validEvent, mutation)
  .map(([e, m]) => JSON.stringify(mutate(e as Obj, m as Mutation)));
const garbage = fc.oneof(
  fc.string({ unit: "binary", maxLength: 500 }),
  fc.json({ maxDepth: 4 }),
  fc
    .jsonValue()
    .map((v) => JSON.stringify({ webhookType: "chatthread-crud", actionType: "created", payload: v })),
  fc.constantFrom("", "null", "[]", "{}", "{", '{"webhookType":', "\u0000", '{"__proto__":{"polluted":1}}'),
);

const RIGHT_2XX = (s: number) => s >= 200 && s <= 299;

describe("webhook receiver: any body with the right secret is answered 2xx", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const post = async (body: string | Buffer, contentType?: string) => {
    const res = await request(h.webhookUrl, {
      method: "POST",
      headers: contentType ? { "content-type": contentType } : {},
      body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  };

  it("valid deliveries are recorded (or known repeats)", async () => {
    await fc.assert(
      fc.asyncProperty(validEvent, async (e) => {
        const r = await post(JSON.stringify(e), "application/json");
        expect(r.status).toBe(200);
        // Spooled when the receiver's own Redis connection is not up yet (just after start).
        expect(["recorded", "spooled"]).toContain((JSON.parse(r.text) as { outcome: string }).outcome);
      }),
      { numRuns: 100 },
    );
  });

  it("near-valid deliveries are kept (dead letter or queued), never refused", async () => {
    await fc.assert(
      fc.asyncProperty(nearValid, async (body) => {
        const r = await post(body, "application/json");
        expect(RIGHT_2XX(r.status), `${r.status} for ${body.slice(0, 200)}`).toBe(true);
        expect(["recorded", "spooled"]).toContain((JSON.parse(r.text) as { outcome: string }).outcome);
      }),
      { numRuns: 150 },
    );
    // Every one acknowledged is classified by the intake pump (queued, a repeat or a dead
    // letter): none is lost between the two.
    const total = async (name: "acks" | "deliveries") =>
      (await h.services.metrics[name].get()).values.reduce((n, v) => n + v.value, 0);
    expect(await waitUntil(async () => (await total("deliveries")) === (await total("acks")))).toBe(true);
    expect(await total("acks")).toBeGreaterThanOrEqual(250);
  });

  it("garbage, under any content type, is kept as a dead letter and answered 2xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.constantFrom(
          undefined,
          "application/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/octet-stream",
        ),
        async (body, ct) => {
          const r = await post(Buffer.from(body, "latin1"), ct);
          expect(RIGHT_2XX(r.status), `${r.status} for ${JSON.stringify(body.slice(0, 100))}`).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
    // Still healthy and nothing polluted.
    const health = await request(`${h.baseUrl}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    expect(({} as Obj).polluted).toBeUndefined();
    // Kept as dead letters by the intake pump, once it has classified them.
    expect(await waitUntil(async () => (await h.workspace.health.deadLetterCounts()).total > 0)).toBe(true);
  });
});
