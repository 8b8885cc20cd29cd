// What every row of bench:steady shares: the stand-ins, the floor Redis, the followed group, the
// options, and how to start one of the apps measured (this checkout's, `--before`'s).
import type { Emulator } from "../dev/emulator/emulator.js";
import type { EmulatedGroup } from "../dev/emulator/types.js";
import type { SlackStandIn } from "../dev/slack-standin/server.js";
import { follow, startApp, type AppWorld, type OwnRedis, type RunningApp } from "./steady-apps.js";
import type { Mix } from "./steady-traffic.js";

/** An app measured: this checkout's (no `dir`) or another's. */
export interface AppTarget {
  name: string;
  dir?: string | undefined;
  nodeFlags: string[];
}

export interface SteadyContext {
  world: AppWorld;
  emulator: Emulator;
  slack: SlackStandIn;
  /** A bare redis-server with no client: what Redis costs doing nothing. */
  floor: OwnRedis;
  /**
   * A new chat group in the emulator: each app started follows one of its own, so that every
   * app's listing lookups read a group of the same size, whatever ran before it.
   */
  freshGroup(): EmulatedGroup;
  mix: Mix;
  warmupSeconds: number;
  /** The one-connection row's own warm-up (as fast as it goes: shorter). */
  oneConnWarmupSeconds: number;
  log: (s: string) => void;
}

let channels = 0;
/** A channel of its own for each app started, so each one's cards are counted apart. */
export const nextChannel = (): string => `C0STEADY${String(++channels).padStart(3, "0")}`;

/** An app started by `startFollowing`, with the group its channel follows. */
export type FollowingApp = RunningApp & { group: EmulatedGroup };

/**
 * Starts `t` on a fresh Redis with `channel` following a fresh group, the per-channel throttle
 * off (`channelGapMs: 0`: Slack's pace is not what is measured).
 */
export async function startFollowing(
  ctx: SteadyContext,
  t: AppTarget,
  channel: string,
  o: { profileDir?: string | undefined; env?: NodeJS.ProcessEnv } = {},
): Promise<FollowingApp> {
  const group = ctx.freshGroup();
  const app = await startApp(ctx.world, {
    name: t.name,
    dir: t.dir,
    nodeFlags: t.nodeFlags,
    tuning: { channelGapMs: 0 },
    profileDir: o.profileDir,
    ...(o.env ? { env: o.env } : {}),
    seed: (redis, prefix) =>
      follow(redis, prefix, {
        channel,
        groupId: group._id,
        groupName: group.name,
        communityId: group.community,
      }),
  });
  return { ...app, group };
}

/** The order of the targets in the `n`th row: reversed every other row. */
export const inTurn = <T>(targets: readonly T[], n: number): T[] =>
  n % 2 === 0 ? [...targets] : [...targets].reverse();
