import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyDelivery, deliveryIdOf } from "../../src/intake/classify-delivery.js";

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/webhooks/${name}.json`, import.meta.url), "utf8");

const validOf = (raw: string | Buffer) => {
  const c = classifyDelivery(raw);
  if (c.kind !== "valid") throw new Error(`expected a valid delivery, got ${c.reason}: ${c.error}`);
  return c;
};

const deadOf = (raw: string | Buffer) => {
  const c = classifyDelivery(raw);
  if (c.kind !== "dead") throw new Error("expected a dead letter");
  return c;
};

describe("classifyDelivery: valid events", () => {
  it("a chatthread-crud created delivery is a thread event with its payload", () => {
    const c = validOf(fixture("chatthread-created"));
    expect(c.event.webhookType).toBe("chatthread-crud");
    expect(c.event.actionType).toBe("created");
    if (c.event.webhookType !== "chatthread-crud") throw new Error("narrowing");
    expect(c.event.payload).toMatchObject({
      threadId: "65f1c0a2e4b0a1d2c3f10a3c",
      groupId: "65f1c0a2e4b0a1d2c3b4a017",
      groupName: "Lumen DB Support",
      title: "Replica lag after upgrading to 4.2",
      participantCount: 5,
      messageCount: 23,
      timestamp: "2025-03-05T18:02:11.482Z",
    });
    expect(c.deliveryId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("an updated thread event keeps actionType updated", () => {
    const c = validOf(fixture("chatthread-updated"));
    expect(c.event.actionType).toBe("updated");
  });

  it("chatmessage-crud created and updated deliveries are message events", () => {
    const created = validOf(fixture("chatmessage-created"));
    const updated = validOf(fixture("chatmessage-updated"));
    if (created.event.webhookType !== "chatmessage-crud") throw new Error("expected a message event");
    expect(created.event.payload).toMatchObject({
      messageId: "65f1c0a2e4b0a1d2c4a7e901",
      threadId: "65f1c0a2e4b0a1d2c3f10a3c",
      senderName: "Tomás Alvarez",
      messageTimestamp: "2025-03-05T17:58:39.000Z",
    });
    expect(created.event.payload.text).toContain("🎉");
    expect(updated.event.actionType).toBe("updated");
    // Same message, edited: a different delivery.
    expect(updated.deliveryId).not.toBe(created.deliveryId);
  });

  it("accepts a Buffer as well as a string, with the same id", () => {
    const raw = fixture("chatthread-created");
    expect(validOf(Buffer.from(raw, "utf8")).deliveryId).toBe(validOf(raw).deliveryId);
  });

  it("unknown extra fields pass through, at the top level and in the payload", () => {
    const c = validOf(fixture("thread-tolerant"));
    expect((c.event as Record<string, unknown>).deliveryAttempt).toBe(2);
    expect(c.event.payload).toMatchObject({ sentiment: "negative", keywords: ["backup", "restore", "ARM"] });
  });

  it("optional fields of the wrong type become absent instead of rejecting the event", () => {
    const c = validOf(fixture("thread-tolerant"));
    if (c.event.webhookType !== "chatthread-crud") throw new Error("expected a thread event");
    const p = c.event.payload;
    expect(p.title).toBeUndefined(); // 42
    expect(p.groupName).toBeUndefined(); // an array
    expect(p.participantCount).toBeUndefined(); // -1
    expect(p.messageCount).toBeUndefined(); // 12.5
    expect(p.summary).toBeNull(); // null is a legitimate "no summary"
    expect(p.threadId).toBe("65f1c0a2e4b0a1d2c3f10a3d");
  });
});

describe("classifyDelivery: dead letters, each with its reason and error text", () => {
  it("invalid_json: the parser's message, no webhook type", () => {
    const c = deadOf("{not json");
    expect(c.reason).toBe("invalid_json");
    expect(c.webhookType).toBeUndefined();
    expect(c.error).toMatch(/JSON/);
    expect(c.deliveryId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("invalid_json: an empty body too", () => {
    const c = deadOf("");
    expect(c.reason).toBe("invalid_json");
    expect(c.error).toMatch(/end of JSON input/);
  });

  it("invalid_envelope: JSON that is not an object names the root", () => {
    for (const raw of ["null", "[]", '"chatthread-crud"', "42"]) {
      const c = deadOf(raw);
      expect(c.reason).toBe("invalid_envelope");
      expect(c.webhookType).toBeUndefined();
      expect(c.error).toMatch(/^\(root\): /);
    }
  });

  it("invalid_envelope: a known type without payload names the missing field and keeps the type", () => {
    const c = deadOf(fixture("missing-payload"));
    expect(c.reason).toBe("invalid_envelope");
    expect(c.webhookType).toBe("chatthread-crud");
    expect(c.error).toMatch(/^payload: /);
  });

  it("invalid_envelope: a non-string webhookType is reported as text", () => {
    const c = deadOf(
      JSON.stringify({
        webhookType: 42,
        actionType: "created",
        payload: { communityId: "c", timestamp: "2025-03-05T18:02:11.482Z" },
      }),
    );
    expect(c.reason).toBe("invalid_envelope");
    expect(c.webhookType).toBe("42");
    expect(c.error).toMatch(/^webhookType: /);
  });

  it("invalid_envelope: the error text lists at most five issues", () => {
    const c = deadOf(JSON.stringify({ a: 1 }));
    expect(c.reason).toBe("invalid_envelope");
    expect(c.error.split("; ").length).toBeLessThanOrEqual(5);
    expect(c.error).toContain("webhookType");
    expect(c.error).toContain("payload");
  });

  it("unknown_type: a well-formed envelope of a type the app does not handle", () => {
    const c = deadOf(fixture("unknown-type"));
    expect(c.reason).toBe("unknown_type");
    expect(c.webhookType).toBe("member-crud");
    expect(c.error).toBe('unknown webhookType "member-crud"');
  });

  it("unknown_type: an attacker-sized type name is cut to 80 characters in the error", () => {
    const long = "x".repeat(500);
    const c = deadOf(
      JSON.stringify({
        webhookType: long,
        actionType: "created",
        payload: { communityId: "c", timestamp: "2025-03-05T18:02:11.482Z" },
      }),
    );
    expect(c.reason).toBe("unknown_type");
    expect(c.error).toBe(`unknown webhookType "${"x".repeat(80)}"`);
  });

  it("invalid_payload: a known type whose payload lacks required fields names each path", () => {
    const c = deadOf(fixture("thread-missing-ids"));
    expect(c.reason).toBe("invalid_payload");
    expect(c.webhookType).toBe("chatthread-crud");
    expect(c.error).toContain("payload.threadId: ");
    expect(c.error).toContain("payload.timestamp: not an ISO 8601 time");
  });

  it("invalid_payload: an actionType outside created/updated", () => {
    const event = JSON.parse(fixture("chatthread-created")) as Record<string, unknown>;
    const c = deadOf(JSON.stringify({ ...event, actionType: "deleted" }));
    expect(c.reason).toBe("invalid_payload");
    expect(c.error).toMatch(/^actionType: /);
  });

  it("invalid_payload: an empty messageId in a message event", () => {
    const event = JSON.parse(fixture("chatmessage-created")) as { payload: Record<string, unknown> };
    const c = deadOf(JSON.stringify({ ...event, payload: { ...event.payload, messageId: "" } }));
    expect(c.reason).toBe("invalid_payload");
    expect(c.webhookType).toBe("chatmessage-crud");
    expect(c.error).toContain("payload.messageId");
  });
});

describe("delivery ids", () => {
  it("do not depend on key order", () => {
    const a = classifyDelivery('{"a":1,"b":{"c":2,"d":[1,2]}}');
    const b = classifyDelivery('{"b":{"d":[1,2],"c":2},"a":1}');
    expect(a.deliveryId).toBe(b.deliveryId);
  });

  it("do not depend on whitespace or escapes: a re-serialised real delivery maps to the same id", () => {
    const raw = fixture("chatmessage-created");
    const parsed = JSON.parse(raw) as { payload: Record<string, unknown> } & Record<string, unknown>;
    // Reversed key order at both levels, no whitespace, non-ASCII escaped.
    const reversed = Object.fromEntries(
      Object.entries({
        ...parsed,
        payload: Object.fromEntries(Object.entries(parsed.payload).reverse()),
      }).reverse(),
    );
    // Without the u flag each UTF-16 unit (an emoji's surrogate halves too) is escaped alone.
    const escaped = JSON.stringify(reversed).replace(
      /[^\x20-\x7e]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    expect(escaped).not.toBe(raw);
    expect(escaped).toContain("\\u00e1"); // "á" of Tomás, escaped
    expect(validOf(escaped).deliveryId).toBe(validOf(raw).deliveryId);
  });

  it("differ when the content differs, even by one character of a value", () => {
    const raw = fixture("chatthread-created");
    const other = raw.replace("2025-03-05T18:02:11.482Z", "2025-03-05T18:02:11.483Z");
    expect(other).not.toBe(raw);
    expect(validOf(other).deliveryId).not.toBe(validOf(raw).deliveryId);
  });

  it("differ between a number and the same digits as a string", () => {
    expect(deliveryIdOf("", { n: 1 })).not.toBe(deliveryIdOf("", { n: "1" }));
  });

  it("are the same for dead letters delivered twice, and for invalid JSON hash the raw bytes", () => {
    expect(deadOf(fixture("unknown-type")).deliveryId).toBe(deadOf(fixture("unknown-type")).deliveryId);
    expect(deadOf("{not json").deliveryId).toBe(deadOf(Buffer.from("{not json")).deliveryId);
    // Without a parse, whitespace is content.
    expect(deadOf("{not json").deliveryId).not.toBe(deadOf("{not  json").deliveryId);
  });
});
