import { describe, expect, it } from "vitest";
import { formatIntakeEntry, newReceiptId, parseIntakeEntry } from "../../src/intake/entry.js";

const AT = "2026-11-26T10:00:00.123Z";

describe("intake entries", () => {
  it("keep the body exactly as received, newlines, spaces and a leading head-like line included", () => {
    for (const body of ['{"a":1}', "", "not json\nat all", "d1 x y z\n{}", ' {\n "a" : 1 }\r\n']) {
      expect(parseIntakeEntry(formatIntakeEntry(AT, body, { receipt: "r1" }))).toEqual({
        kind: "received",
        receivedAt: AT,
        receipt: "r1",
        body,
      });
    }
  });

  it("carry a workspace in multi-workspace mode, and no receipt id for a delivery spooled before ids", () => {
    expect(parseIntakeEntry(formatIntakeEntry(AT, "{}", { workspaceId: "T0123ABC" }))).toEqual({
      kind: "received",
      receivedAt: AT,
      body: "{}",
      workspaceId: "T0123ABC",
    });
  });

  it("read an older receiver's job entry as recorded, with its workspace", () => {
    const job = {
      deliveryId: "d-1",
      receivedAt: AT,
      event: { webhookType: "chatthread-crud", payload: { groupId: "g" } },
      deduplicated: true,
    };
    expect(parseIntakeEntry(JSON.stringify({ job, workspaceId: "T1" }))).toEqual({
      kind: "recorded",
      job,
      workspaceId: "T1",
    });
    expect(parseIntakeEntry(JSON.stringify({ job }))).toEqual({ kind: "recorded", job });
  });

  it("are undefined for anything no receiver wrote", () => {
    for (const raw of [
      "",
      "garbage",
      "{}",
      "null",
      '{"job":{"deliveryId":1}}',
      '{"job":{"deliveryId":"d","event":{}}}',
      '{"job":{"deliveryId":"d","event":{"webhookType":"x"}},"workspaceId":7}',
      "d1 only-a-time\n{}",
      "d2 2026-11-26T10:00:00.000Z - -\n{}",
    ]) {
      expect(parseIntakeEntry(raw), raw).toBeUndefined();
    }
  });

  it("receipt ids are distinct in a process, and hold no space or newline", () => {
    const ids = Array.from({ length: 1_000 }, () => newReceiptId());
    expect(new Set(ids).size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]+$/);
  });
});
