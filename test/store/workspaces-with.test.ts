import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AlertSettingsStore } from "../../src/alerts/settings-store.js";
import { silentLogger } from "../../src/log.js";
import { OpsNotifier } from "../../src/ops/ops-notifier.js";
import { stateKeys, workspacesWithKeys, workspaceStateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { SubscriptionStore, type Subscription } from "../../src/store/subscriptions.js";
import { WorkspacesWith } from "../../src/store/workspaces-with.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const sub = (channelId: string): Subscription => ({
  channelId,
  groupId: "g-support",
  groupName: "Support",
  communityId: "c-1",
  filters: {},
  createdBy: "U0ADMIN",
  createdAt: "2026-12-01T09:00:00.000Z",
});

describe("WorkspacesWith: the workspaces a tick visits, from the sets their stores note them in", () => {
  let redis: Redis;
  let prefix: string;
  let installed: string[];
  let index: WorkspacesWith;
  const keysOf = (id: string) => workspaceStateKeys(prefix, id);
  const subscriptions = (id: string) => new SubscriptionStore(redis, keysOf(id));

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("with");
    installed = ["T0A", "T0B", "T0C", "T0QUIET"];
    index = new WorkspacesWith(redis, workspacesWithKeys(prefix), { keysOf, all: async () => installed });
  });
  afterEach(() => dropPrefix(prefix));

  it("returns the workspaces whose stores wrote a subscription, alert settings or an incident, and no other", async () => {
    await subscriptions("T0A").put(sub("C0A"));
    await new AlertSettingsStore(redis, keysOf("T0B")).put("C0B", {
      groupId: "g-support",
      groupName: "Support",
      negativeSpike: true,
      volumeSpike: false,
      setBy: "U0ADMIN",
      setAt: "2026-12-01T09:00:00.000Z",
    });
    const ops = new OpsNotifier(
      redis,
      keysOf("T0C"),
      () => ({ add: async () => undefined }),
      undefined,
      silentLogger,
    );
    await ops.alert("insight-unreachable", "The Insight service does not answer.");

    expect(await index.having(["subscriptions"])).toEqual(["T0A"]);
    expect(await index.having(["alerts"])).toEqual(["T0B"]);
    expect(await index.having(["subscriptions", "incidents"])).toEqual(["T0A", "T0C"]);
  });

  it("reads only the sets and their members: a quiet workspace costs a look nothing", async () => {
    installed = Array.from({ length: 200 }, (_, i) => `T0Q${i}`);
    await subscriptions("T0Q7").put(sub("C0Q7"));
    await index.having(["subscriptions"]); // the one build
    const sent = await commandsOf(redis, () => index.having(["subscriptions", "alerts"]));
    expect(sent.result).toEqual(["T0Q7"]);
    // One SMEMBERS a set, one EXISTS for the one member: nothing of the 199 others.
    expect(sent.commands.sort()).toEqual(["exists", "smembers", "smembers"]);
  });

  it("drops a workspace whose key is gone (unsubscribed, uninstalled), and notes it again when it comes back", async () => {
    const store = subscriptions("T0A");
    await store.put(sub("C0A"));
    expect(await index.having(["subscriptions"])).toEqual(["T0A"]);
    await store.remove("C0A", "g-support");
    expect(await index.having(["subscriptions"])).toEqual([]);
    expect(await redis.smembers(workspacesWithKeys(prefix).setOf("subscriptions"))).toEqual([]);
    await store.put(sub("C0A"));
    expect(await index.having(["subscriptions"])).toEqual(["T0A"]);
  });

  it("a deployment from before the sets: the first look builds them from every installed workspace, once", async () => {
    // Written as an older version wrote them: the keys, no note in any set.
    await redis.sadd(stateKeys(`${prefix}:w:T0B`).subscribedGroups, "g-support");
    await redis.hset(stateKeys(`${prefix}:w:T0C`).opsAlerts, "x", "{}");
    expect(await index.having(["subscriptions"])).toEqual(["T0B"]);
    expect(await redis.exists(workspacesWithKeys(prefix).built)).toBe(1);
    expect(await index.having(["incidents"])).toEqual(["T0C"]);
    // Built once for the deployment: another process does not build again.
    const later = new WorkspacesWith(redis, workspacesWithKeys(prefix), {
      keysOf,
      all: async () => {
        throw new Error("built again");
      },
    });
    expect(await later.having(["subscriptions", "incidents"])).toEqual(["T0B", "T0C"]);
  });

  it("the single workspace's stores note nothing in any set", async () => {
    await new SubscriptionStore(redis, stateKeys(prefix)).put(sub("C0ONE"));
    const sets = await Promise.all(
      (["subscriptions", "alerts", "incidents"] as const).map((h) =>
        redis.exists(workspacesWithKeys(prefix).setOf(h)),
      ),
    );
    expect(sets).toEqual([0, 0, 0]);
  });
});

/** The commands `redis` sent while `fn` ran, as MONITOR saw them from its address. */
async function commandsOf<T>(redis: Redis, fn: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const me = /(?:^| )addr=(\S+)/.exec(String(await redis.call("CLIENT", "INFO")))?.[1];
  const monitor = await redis.duplicate().monitor();
  const commands: string[] = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === me) commands.push(String(args[0]).toLowerCase());
  });
  try {
    const result = await fn();
    // MONITOR's feed runs behind: a PING of ours after the work marks its end.
    await redis.ping();
    await expect.poll(() => commands.at(-1), { timeout: 2_000 }).toBe("ping");
    return { result, commands: commands.slice(0, -1) };
  } finally {
    monitor.disconnect();
  }
}
