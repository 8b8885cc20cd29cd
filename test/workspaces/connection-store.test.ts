import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { installKeys, type InstallKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { ConnectionStore } from "../../src/workspaces/connection-store.js";
import { Sealer } from "../../src/workspaces/encryption.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("ConnectionStore", () => {
  let redis: Redis;
  let prefix: string;
  let keys: InstallKeys;
  let store: ConnectionStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("conn");
    keys = installKeys(prefix);
    store = new ConnectionStore(redis, keys, new Sealer(Buffer.alloc(32, 5)));
  });
  afterEach(() => dropPrefix(prefix));

  it("keeps the key sealed and routes each workspace's secret to it alone", async () => {
    const a = await store.connect("T1", { apiKey: "key-one-secret", baseUrl: "https://i.example", by: "U1" });
    const b = await store.connect("T2", { apiKey: "key-two-secret", baseUrl: "https://i.example", by: "U2" });
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(40);
    const dump = JSON.stringify([
      await redis.hgetall(keys.connection("T1")),
      await redis.hgetall(keys.secretIndex),
    ]);
    for (const s of ["key-one-secret", a, b]) expect(dump).not.toContain(s);
    expect(await store.workspaceForSecret(a)).toBe("T1");
    expect(await store.workspaceForSecret(b)).toBe("T2");
    expect(await store.workspaceForSecret(`${a}x`)).toBeUndefined();
    expect((await store.get("T1"))?.apiKey).toBe("key-one-secret");
  });

  it("rotating the secret retires the old URL; reconnecting does too; disconnect forgets both", async () => {
    const first = await store.connect("T1", { apiKey: "k", baseUrl: "https://i.example", by: "U1" });
    const second = await store.rotateSecret("T1");
    expect(second).toBeDefined();
    expect(await store.workspaceForSecret(first)).toBeUndefined();
    expect(await store.workspaceForSecret(second ?? "")).toBe("T1");
    const third = await store.connect("T1", { apiKey: "k2", baseUrl: "https://i.example", by: "U1" });
    expect(await store.workspaceForSecret(second ?? "")).toBeUndefined();
    await store.disconnect("T1");
    expect(await store.workspaceForSecret(third)).toBeUndefined();
    expect(await store.get("T1")).toBeUndefined();
    expect(await store.rotateSecret("T1")).toBeUndefined();
  });

  it("marks a refused key once, only while it is the stored key; Connect and success clear the mark", async () => {
    const base = { baseUrl: "https://i.example", by: "U1" };
    await store.connect("T1", { apiKey: "old-key", ...base });
    expect(await store.summary("T1")).toEqual({ connected: true, keyRejectedAt: undefined });
    const first = await store.markKeyRejected("T1", "old-key");
    expect(first).toBeDefined();
    // Once per incident: a second 401 (any process) opens nothing new.
    expect(await store.markKeyRejected("T1", "old-key")).toBeUndefined();
    expect((await store.summary("T1")).keyRejectedAt).toBe(first);
    // A new secret keeps the key, so it keeps the mark.
    await store.rotateSecret("T1");
    expect((await store.summary("T1")).keyRejectedAt).toBe(first);
    expect(await store.clearKeyRejected("T1")).toBe(true);
    expect(await store.clearKeyRejected("T1")).toBe(false);
    expect(await store.markKeyRejected("T1", "old-key")).toBeDefined();
    // Connect replaces the key: the mark goes, and a late 401 of the old key does not come back.
    await store.connect("T1", { apiKey: "new-key", ...base });
    expect((await store.summary("T1")).keyRejectedAt).toBeUndefined();
    expect(await store.markKeyRejected("T1", "old-key")).toBeUndefined();
    expect((await store.summary("T1")).keyRejectedAt).toBeUndefined();
    // A disconnected workspace is never brought back by a mark.
    await store.disconnect("T1");
    expect(await store.markKeyRejected("T1", "new-key")).toBeUndefined();
    expect(await store.isConnected("T1")).toBe(false);
    expect(await store.summary("T1")).toEqual({ connected: false, keyRejectedAt: undefined });
  });

  it("counts the connected workspaces: a new key or secret counts once, a disconnected one not at all", async () => {
    const base = { baseUrl: "https://i.example", by: "U1" };
    expect(await store.count()).toBe(0);
    await store.connect("T1", { apiKey: "key-one", ...base });
    await store.connect("T2", { apiKey: "key-two", ...base });
    await store.connect("T1", { apiKey: "key-one-again", ...base });
    await store.rotateSecret("T2");
    expect(await store.count()).toBe(2);
    await store.disconnect("T1");
    expect(await store.count()).toBe(1);
  });
});
