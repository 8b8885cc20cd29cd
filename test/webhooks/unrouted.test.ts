import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import type { SpooledDelivery } from "../../src/webhooks/spool.js";
import { UnroutedDeliveries, type UnroutedDeps, type WebhookIngest } from "../../src/webhooks/unrouted.js";

const hash = (s: string) => createHash("sha256").update(s).digest("hex");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(o: Partial<UnroutedDeps> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "insight-relay-unrouted-"));
  dirs.push(dir);
  const routed: { body: string; at: string }[] = [];
  const dead: SpooledDelivery[] = [];
  const owner: WebhookIngest = {
    ingest: async (body, at) => {
      routed.push({ body, at: at?.toISOString() ?? "" });
      return { outcome: "recorded" };
    },
  };
  let redisUp = false;
  const u = new UnroutedDeliveries({
    dir,
    resolve: async (h) => {
      if (!redisUp) throw new Error("Redis unavailable");
      return h === hash("right-secret") ? owner : "unknown";
    },
    deadLetter: async (d) => void dead.push(d),
    logger: silentLogger,
    ...o,
  });
  return { u, dir, routed, dead, up: () => (redisUp = true) };
}

describe("deliveries kept unrouted while Redis is down", () => {
  it("keeps them while Redis cannot say, then routes the known secret's and dead-letters the other's", async () => {
    const { u, dir, routed, dead, up } = setup();
    const at = new Date("2026-01-02T03:04:05.000Z");
    expect(u.keep(hash("right-secret"), '{"n":1}', at).outcome).toBe("spooled");
    u.keep(hash("right-secret"), '{"n":2}', at);
    u.keep(hash("wrong-secret"), '{"n":3}', at);
    await u.replay();
    expect(routed).toEqual([]);
    expect(u.pending()).toBe(true);
    up();
    await u.replay();
    expect(routed).toEqual([
      { body: '{"n":1}', at: at.toISOString() },
      { body: '{"n":2}', at: at.toISOString() },
    ]);
    expect(dead.map((d) => d.body)).toEqual(['{"n":3}']);
    expect(u.pending()).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    u.close();
  });

  it("finds what a previous process kept", async () => {
    const first = setup();
    first.u.keep(hash("right-secret"), '{"n":1}');
    first.u.close();
    const { routed, up } = setup();
    const again = new UnroutedDeliveries({
      dir: first.dir,
      resolve: async () => ({
        ingest: async (body) => {
          routed.push({ body, at: "" });
          return { outcome: "recorded" };
        },
      }),
      deadLetter: async () => undefined,
      logger: silentLogger,
    });
    up();
    expect(again.pending()).toBe(true);
    await again.replay();
    expect(routed.map((r) => r.body)).toEqual(['{"n":1}']);
    again.close();
  });

  it("refuses past its bounds, since a wrong secret cannot be told from a right one meanwhile", () => {
    const { u } = setup({ maxSecrets: 2, maxBytes: 20 });
    u.keep(hash("a"), "0123456789");
    u.keep(hash("b"), "01234");
    expect(() => u.keep(hash("c"), "0")).toThrow(/too many unchecked webhook secrets/);
    expect(() => u.keep(hash("a"), "0123456789")).toThrow(/full/);
    expect(() => u.keep("../../etc", "0")).toThrow(/not a secret hash/);
    u.close();
  });
});
