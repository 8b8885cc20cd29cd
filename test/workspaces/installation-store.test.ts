import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { installKeys, type InstallKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { keyId, Sealer } from "../../src/workspaces/encryption.js";
import { NoInstallationError, RedisInstallationStore } from "../../src/workspaces/installation-store.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { teamInstall } from "./fixtures.js";

const k1 = Buffer.alloc(32, 1);
const k2 = Buffer.alloc(32, 2);

describe("RedisInstallationStore", () => {
  let redis: Redis;
  let prefix: string;
  let keys: InstallKeys;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("install");
    keys = installKeys(prefix);
  });
  afterEach(() => dropPrefix(prefix));

  it("keeps tokens encrypted at rest and gives them back to Bolt", async () => {
    const store = new RedisInstallationStore(redis, keys, new Sealer(k1));
    await store.storeInstallation(teamInstall("T1", "xoxb-T1-secret"));
    const raw = await redis.hgetall(keys.installation("T1"));
    expect(JSON.stringify(raw)).not.toContain("xoxb-T1-secret");
    expect(raw.sealed?.split(".")[1]).toBe(keyId(k1));
    expect(raw.name).toBe("Team T1");
    const back = await store.fetchInstallation({
      teamId: "T1",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(back.bot?.token).toBe("xoxb-T1-secret");
    expect(await store.list()).toEqual([
      expect.objectContaining({ id: "T1", name: "Team T1", enterprise: false, installerId: "U0INSTALLER" }),
    ]);
  });

  it("keys an org-wide install by its enterprise id, so every team of the org finds it", async () => {
    const store = new RedisInstallationStore(redis, keys, new Sealer(k1));
    await store.storeInstallation({
      ...teamInstall("unused", "xoxb-E1-secret"),
      team: undefined,
      enterprise: { id: "E1", name: "Org One" },
      isEnterpriseInstall: true,
    });
    expect(await redis.exists(keys.installation("E1"))).toBe(1);
    const fromTeam = await store.fetchInstallation({
      teamId: "T77",
      enterpriseId: "E1",
      isEnterpriseInstall: true,
    });
    expect(fromTeam.bot?.token).toBe("xoxb-E1-secret");
    // A team install of the same org is its own workspace, not the org's.
    await expect(
      store.fetchInstallation({ teamId: "T77", enterpriseId: "E1", isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NoInstallationError);
  });

  it("re-seals with the new key what an older key opened while ENCRYPTION_KEY rotates", async () => {
    await new RedisInstallationStore(redis, keys, new Sealer(k1)).storeInstallation(
      teamInstall("T1", "xoxb-a"),
    );
    const rotating = new RedisInstallationStore(redis, keys, new Sealer(k2, [k1]));
    const q = { teamId: "T1", enterpriseId: undefined, isEnterpriseInstall: false };
    expect((await rotating.fetchInstallation(q)).bot?.token).toBe("xoxb-a");
    expect((await redis.hget(keys.installation("T1"), "sealed"))?.split(".")[1]).toBe(keyId(k2));
    // After rotation the old key can go.
    expect(
      (await new RedisInstallationStore(redis, keys, new Sealer(k2)).fetchInstallation(q)).bot?.token,
    ).toBe("xoxb-a");
  });

  it("forgets a deleted workspace, and an unknown one is an error Bolt reports", async () => {
    const store = new RedisInstallationStore(redis, keys, new Sealer(k1));
    await store.storeInstallation(teamInstall("T1", "xoxb-a"));
    await store.deleteInstallation({ teamId: "T1", enterpriseId: undefined, isEnterpriseInstall: false });
    expect(await store.has("T1")).toBe(false);
    expect(await store.list()).toEqual([]);
    await expect(
      store.fetchInstallation({ teamId: "T1", enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NoInstallationError);
  });

  it("counts the installed workspaces: a re-install counts once, a deleted one not at all", async () => {
    const store = new RedisInstallationStore(redis, keys, new Sealer(k1));
    expect(await store.count()).toBe(0);
    await store.storeInstallation(teamInstall("T1", "xoxb-a"));
    await store.storeInstallation(teamInstall("T2", "xoxb-b"));
    await store.storeInstallation(teamInstall("T1", "xoxb-a2"));
    expect(await store.count()).toBe(2);
    await store.deleteInstallation({ teamId: "T1", enterpriseId: undefined, isEnterpriseInstall: false });
    expect(await store.count()).toBe(1);
  });
});
