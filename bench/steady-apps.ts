// The processes bench:steady measures: each app (this checkout's, or `--before`'s) bundled as
// `npm run build` bundles it, with `npm start`'s Node flags, on a throwaway redis-server of its
// own, so that Redis's CPU and INFO commandstats are that app's alone; and a bare redis-server
// with no client, the floor that Redis costs doing nothing.
import type { ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { freePort, startThrowawayRedis, type ThrowawayRedis } from "../dev/local-redis.js";
import { stateKeys } from "../src/store/keys.js";
import { SubscriptionStore } from "../src/store/subscriptions.js";
import { appScript, benchAppEnv, spawnReady, startFlags, stopChild } from "./processes.js";

/** A redis-server of the bench's own, with its pid (for its CPU) and a client. */
export interface OwnRedis {
  own: ThrowawayRedis;
  url: string;
  pid: number;
  client: Redis;
  close(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const own = await startThrowawayRedis();
  const client = new Redis(own.url);
  const info = await client.info("server");
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1] ?? NaN);
  return {
    own,
    url: own.url,
    pid,
    client,
    async close() {
      client.disconnect();
      await own.close();
    },
  };
}

/** What the apps share: the stand-ins, the webhook secret, a spool directory. */
export interface AppWorld {
  slackUrl: string;
  insightUrl: string;
  insightKey: string;
  secret: string;
  spool: string;
}

export interface RunningApp {
  name: string;
  child: ChildProcess;
  pid: number;
  redis: OwnRedis;
  prefix: string;
  /** The webhook URL, `/webhooks/insight/<secret>`. */
  url: string;
  /** performance.now() when it said it was ready. */
  readyAt: number;
  /** Stops the app (SIGINT with a profile, so it writes it) and its Redis. */
  stop(): Promise<void>;
}

/** A subscription of `channel` to `group`, written as the app's SubscriptionStore writes it. */
export async function follow(
  redis: Redis,
  prefix: string,
  o: { channel: string; groupId: string; groupName: string; communityId: string },
): Promise<void> {
  // The before checkout (fb707ca) keeps subscriptions under the same keys: src/store/keys.ts's
  // subsByGroup/subsByChannel/subscribedGroups/subscribedChannels and store/subscriptions.ts
  // are identical there.
  await new SubscriptionStore(redis, stateKeys(prefix)).put({
    channelId: o.channel,
    groupId: o.groupId,
    groupName: o.groupName,
    communityId: o.communityId,
    filters: {},
    createdBy: "U0BENCH",
    createdAt: new Date().toISOString(),
  });
}

/**
 * Starts one app on a fresh Redis; `seed` writes its state first (subscriptions, workspaces).
 * `dir`: another checkout (`--before`). `profileDir`: a `--cpu-prof` profile written there.
 */
export async function startApp(
  world: AppWorld,
  o: {
    name: string;
    dir?: string | undefined;
    tuning?: object;
    nodeFlags?: string[];
    profileDir?: string | undefined;
    env?: NodeJS.ProcessEnv;
    seed?: (redis: Redis, prefix: string) => Promise<void>;
  },
): Promise<RunningApp> {
  const redis = await startOwnRedis();
  const prefix = "steady";
  await o.seed?.(redis.client, prefix);
  const port = await freePort();
  const profile = o.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${o.profileDir}`] : [];
  let child: ChildProcess;
  try {
    child = await spawnReady([await appScript(o.dir)], {
      env: {
        ...benchAppEnv({
          slackUrl: world.slackUrl,
          insightUrl: world.insightUrl,
          insightKey: world.insightKey,
          webhookSecret: world.secret,
          redisUrl: redis.url,
          prefix,
          port,
          spoolDir: world.spool,
          tuning: o.tuning ?? {},
        }),
        ...o.env,
      },
      tsx: false,
      ...(o.dir ? { cwd: o.dir } : {}),
      nodeFlags: [...startFlags(o.dir), ...(o.nodeFlags ?? []), ...profile],
      timeoutMs: 120_000,
    });
  } catch (err) {
    await redis.close();
    throw err;
  }
  return {
    name: o.name,
    child,
    pid: child.pid ?? 0,
    redis,
    prefix,
    url: `http://127.0.0.1:${port}/webhooks/insight/${world.secret}`,
    readyAt: performance.now(),
    async stop() {
      await stopChild(child, o.profileDir ? "SIGINT" : "SIGKILL");
      await redis.close();
    },
  };
}
