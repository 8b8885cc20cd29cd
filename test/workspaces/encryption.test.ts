import { describe, expect, it } from "vitest";
import { keyId, SealError, Sealer } from "../../src/workspaces/encryption.js";

const k1 = Buffer.alloc(32, 1);
const k2 = Buffer.alloc(32, 2);

describe("Sealer", () => {
  it("round-trips, never shows the plaintext, and differs each time", () => {
    const s = new Sealer(k1);
    const a = s.seal("xoxb-secret-token");
    const b = s.seal("xoxb-secret-token");
    expect(a).not.toContain("xoxb");
    expect(a).not.toBe(b);
    expect(a.split(".")[1]).toBe(keyId(k1));
    expect(s.open(a)).toEqual({ plaintext: "xoxb-secret-token", stale: false });
  });

  it("opens values of an older key during rotation and says they are stale", () => {
    const old = new Sealer(k1).seal("key-123");
    const rotating = new Sealer(k2, [k1]);
    expect(rotating.open(old)).toEqual({ plaintext: "key-123", stale: true });
    expect(rotating.open(rotating.seal("key-123")).stale).toBe(false);
  });

  it("refuses an unknown key, a tampered value and a malformed one with a code, not the value", () => {
    const sealed = new Sealer(k1).seal("key-123");
    expect(() => new Sealer(k2).open(sealed)).toThrow(new SealError("unknown_key"));
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[4] ?? "", "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[4] = flipped.toString("base64url");
    expect(() => new Sealer(k1).open(parts.join("."))).toThrow(new SealError("tampered"));
    expect(() => new Sealer(k1).open("plain-text")).toThrow(new SealError("malformed"));
    // The key id is authenticated: relabelling a value to another known key fails.
    const relabelled = sealed.replace(keyId(k1), keyId(k2));
    expect(() => new Sealer(k2, [k1]).open(relabelled)).toThrow(new SealError("tampered"));
  });
});
