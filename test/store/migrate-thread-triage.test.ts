import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys, workspacePrefix } from "../../src/store/keys.js";
import { MessageRefStore } from "../../src/store/message-refs.js";
import { migrateThreadTriage, readOldKey } from "../../src/store/migrate-thread-triage.js";
import { createRedis } from "../../src/store/redis.js";
import { TriageStore } from "../../src/store/triage.js";
import { keysMatching } from "../helpers/keys-under.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/*
 * Issue 35: triage written in the old layout (one hash and one follower set per channel's card,
 * Home's indexes of "<channel> <thread>") is read back per thread after the migration, in the
 * deployment's own state and in an installed workspace's, and nothing of it is lost.
 */

const at = (m: number) => Date.UTC(2025, 2, 6, 12, m);

/** The old layout's keys, written as the previous version wrote them (store/triage.ts before issue 35). */
function oldLayout(redis: Redis, statePrefix: string) {
  const s = `${statePrefix}:state`;
  return {
    async handled(channel: string, thread: string, by: string, atMs: number) {
      await redis.hset(`${s}:triage:${channel}:${thread}`, "handledBy", by, "handledAt", String(atMs));
      await redis.zadd(`${s}:triage:handled`, atMs, `${channel} ${thread}`);
    },
    async assigned(channel: string, thread: string, user: string, by: string, atMs: number) {
      await redis.hset(
        `${s}:triage:${channel}:${thread}`,
        "assignee",
        user,
        "assignedBy",
        by,
        "assignedAt",
        String(atMs),
      );
      await redis.zadd(`${s}:triage:assigned:${user}`, atMs, `${channel} ${thread}`);
    },
    async follower(channel: string, thread: string, user: string) {
      await redis.sadd(`${s}:followers:${channel}:${thread}`, user);
    },
    async posted(channel: string, thread: string, atMs: number) {
      await redis.zadd(`${s}:triage:recent`, "NX", atMs, `${channel} ${thread}`);
      await redis.hset(
        `${s}:ref:${channel}:${thread}`,
        "version",
        "2",
        "ts",
        `1700000000.${channel.slice(-2)}`,
        "enrichedAtMs",
        "1",
        "hasSentiment",
        "0",
        "groupId",
        "g1",
      );
    },
  };
}

describe("migrating triage from channels to threads (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("migrate");
  });
  afterEach(async () => dropPrefix(prefix));

  it("reads old keys by their names, and nothing else", () => {
    expect(readOldKey(prefix, `${prefix}:state:triage:C1:t:1`)).toEqual({
      kind: "triage",
      ws: prefix,
      channelId: "C1",
      threadId: "t:1",
    });
    expect(readOldKey(prefix, `${prefix}:w:T1:state:followers:C1:t1`)).toMatchObject({
      kind: "followers",
      ws: `${prefix}:w:T1`,
    });
    expect(readOldKey(prefix, `${prefix}:state:ref:{C1:t1}`)).toMatchObject({
      kind: "ref",
      channelId: "C1",
      threadId: "t1",
    });
    expect(readOldKey(prefix, `${prefix}:state:triage:recent`)).toEqual({ kind: "recent", ws: prefix });
    expect(readOldKey(prefix, `${prefix}:state:triage:assigned:U1`)).toEqual({ kind: "derived", ws: prefix });
    // The new layout, other prefixes and other keys are not old keys.
    expect(readOldKey(prefix, `${prefix}:state:thread-triage:t1`)).toBeUndefined();
    expect(readOldKey(prefix, `${prefix}:state:threads:recent`)).toBeUndefined();
    expect(readOldKey(prefix, `${prefix}-other:state:triage:C1:t1`)).toBeUndefined();
    expect(readOldKey(prefix, `${prefix}:state:replies:C1:t1`)).toBeUndefined();
  });

  it("keeps every mark, assignee and follower, per thread, in every workspace; Home lists each thread once", async () => {
    const single = oldLayout(redis, prefix);
    // t1 is shown in two channels: handled in both (Bob first), followed in both, assigned in one.
    await single.posted("C1", "t1", at(0));
    await single.posted("C2", "t1", at(1));
    await single.handled("C2", "t1", "U0BOB", at(5));
    await single.handled("C1", "t1", "U0ALICE", at(7));
    await single.follower("C1", "t1", "U0CAROL");
    await single.follower("C2", "t1", "U0CAROL");
    await single.follower("C2", "t1", "U0DAN");
    await single.assigned("C1", "t1", "U0CAROL", "U0ALICE", at(6));
    // t2: assigned in two channels to two people; the later assignment is the thread's.
    await single.posted("C1", "t2", at(2));
    await single.posted("C2", "t2", at(3));
    await single.assigned("C1", "t2", "U0DAN", "U0ALICE", at(8));
    await single.assigned("C2", "t2", "U0EVE", "U0BOB", at(9));
    // t3: posted, untouched.
    await single.posted("C2", "t3", at(4));
    // An installed workspace's own state, with a thread id another workspace also has.
    const wsPrefix = workspacePrefix(prefix, "T0ALPHA");
    const alpha = oldLayout(redis, wsPrefix);
    await alpha.posted("C9", "t1", at(0));
    await alpha.handled("C9", "t1", "U0ZED", at(3));
    await alpha.follower("C9", "t1", "U0YAN");

    const result = await migrateThreadTriage(redis, prefix, silentLogger);
    expect(result).toEqual({
      ran: true,
      counts: { triage: 5, followers: 3, open: 6, cards: 6, assigneesReplaced: 1 },
    });

    const keys = stateKeys(prefix);
    const triage = new TriageStore(redis, keys);
    const refs = new MessageRefStore(redis, keys);
    expect(await triage.get("t1")).toEqual({
      handled: { by: "U0BOB", atMs: at(5), channelId: "C2" },
      assignee: { user: "U0CAROL", by: "U0ALICE", atMs: at(6), channelId: "C1" },
      followers: 2,
    });
    expect(await triage.followersOf("t1")).toEqual(["U0CAROL", "U0DAN"]);
    expect((await triage.get("t2")).assignee).toEqual({
      user: "U0EVE",
      by: "U0BOB",
      atMs: at(9),
      channelId: "C2",
    });
    expect(await triage.get("t3")).toEqual({ followers: 0 });
    // Every card of each thread is known by thread, for the next triage edit.
    expect(await refs.channelsOf("t1")).toEqual(["C1", "C2"]);
    expect(await refs.channelsOf("t3")).toEqual(["C2"]);
    // Home: each thread once; handled ones leave the open list; the later assignee has t2.
    expect(await triage.forHome("U0DAN", 5)).toEqual({
      assigned: [],
      handled: [{ threadId: "t1", atMs: at(5) }],
      open: [
        { threadId: "t3", atMs: at(4) },
        { threadId: "t2", atMs: at(2) },
      ],
    });
    expect((await triage.forHome("U0EVE", 5)).assigned).toEqual([{ threadId: "t2", atMs: at(9) }]);
    expect((await triage.forHome("U0CAROL", 5)).assigned).toEqual([]); // t1 is handled
    // The installed workspace's marks stay its own.
    const alphaTriage = new TriageStore(redis, stateKeys(wsPrefix));
    expect(await alphaTriage.get("t1")).toEqual({
      handled: { by: "U0ZED", atMs: at(3), channelId: "C9" },
      followers: 1,
    });
    // The old keys are gone; the refs stay (they are still the cards').
    const left = await keysMatching(redis, `${prefix}*:state:*`);
    expect(left.filter((k) => /:state:(triage|followers):/.test(k))).toEqual([]);
    expect(left.filter((k) => k.includes(":state:ref:"))).toHaveLength(6);
  });

  it("runs once: a later start finds the marker and reads nothing; a busy lock starts without waiting", async () => {
    await oldLayout(redis, prefix).handled("C1", "t1", "U0BOB", at(1));
    expect((await migrateThreadTriage(redis, prefix, silentLogger)).ran).toBe(true);
    // The marker stops a second pass: a key in the old shape written now (this version writes none) is not read.
    await oldLayout(redis, prefix).handled("C1", "t9", "U0BOB", at(1));
    expect(await migrateThreadTriage(redis, prefix, silentLogger)).toEqual({ ran: false, reason: "done" });
    expect((await new TriageStore(redis, stateKeys(prefix)).get("t9")).handled).toBeUndefined();

    const other = uniquePrefix("migrate");
    try {
      await redis.set(stateKeys(other).lock("migrate-thread-triage"), "someone", "PX", 60_000);
      expect(await migrateThreadTriage(redis, other, silentLogger)).toEqual({ ran: false, reason: "busy" });
    } finally {
      await dropPrefix(other);
    }
  });

  it("a pass cut short is finished by the next one, with the same result", async () => {
    const single = oldLayout(redis, prefix);
    await single.handled("C1", "t1", "U0ALICE", at(7));
    await single.handled("C2", "t1", "U0BOB", at(5));
    // Half of it folded in by a pass that died before setting its marker:
    await migrateThreadTriage(redis, prefix, silentLogger);
    await redis.del(stateKeys(prefix).migrated("thread-triage"));
    await single.handled("C3", "t1", "U0CAROL", at(9));
    await single.follower("C3", "t1", "U0DAN");
    expect((await migrateThreadTriage(redis, prefix, silentLogger)).ran).toBe(true);
    const t = await new TriageStore(redis, stateKeys(prefix)).get("t1");
    expect(t.handled).toEqual({ by: "U0BOB", atMs: at(5), channelId: "C2" });
    expect(t.followers).toBe(1);
  });
});
