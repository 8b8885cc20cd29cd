import type { App } from "@slack/bolt";
import type { Feature } from "../feature.js";
import type { Redis as OneRedis } from "ioredis";
import { isCluster, type RedisClient as Redis } from "../store/redis.js";
import type { Logger } from "../log.js";
import { workspaceIdOf } from "./workspace-id.js";

export interface RemoveWorkspaceDeps {
  redis: Redis;
  /** The workspace's own key prefix (store/keys.ts workspacePrefix). */
  prefixOf(workspaceId: string): string;
  /** Its weekly and digest schedules live in the shared queues: removed one by one, through its own view. */
  removeSchedules(workspaceId: string): Promise<number>;
  deleteInstallation(workspaceId: string): Promise<void>;
  disconnect(workspaceId: string): Promise<void>;
  /** Drops the cached clients, so a queued job of this workspace finds it gone. */
  forget(workspaceId: string): void;
  logger: Logger;
}

/** Deletes every key under a prefix on one node, in batches (SCAN, never KEYS). */
async function dropNodeKeys(node: OneRedis, prefix: string, oneByOne: boolean): Promise<number> {
  let cursor = "0";
  let n = 0;
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    if (keys.length === 0) continue;
    if (!oneByOne) n += await node.unlink(...keys);
    else {
      // A cluster refuses one UNLINK over keys of several slots: one each, in one round trip.
      const done = await node.pipeline(keys.map((k) => ["unlink", k])).exec();
      n += (done ?? []).reduce((sum, [, v]) => sum + (typeof v === "number" ? v : 0), 0);
    }
  } while (cursor !== "0");
  return n;
}

/**
 * Deletes every key under a prefix. On a cluster SCAN sees one node's keys only, so every
 * master is scanned (its keys are deleted through it: they are in its slots).
 */
export async function dropKeys(redis: Redis, prefix: string): Promise<number> {
  if (!isCluster(redis)) return dropNodeKeys(redis, prefix, false);
  const counts = await Promise.all(redis.nodes("master").map((node) => dropNodeKeys(node, prefix, true)));
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * A workspace leaves (app_uninstalled, or its bot token revoked): its schedules, tokens, Insight
 * connection, subscriptions and every other piece of its state are deleted. Jobs already queued
 * for it end without a Slack call (the worker finds no workspace).
 */
export async function removeWorkspace(deps: RemoveWorkspaceDeps, workspaceId: string): Promise<void> {
  const schedules = await deps.removeSchedules(workspaceId).catch((err: unknown) => {
    deps.logger.warn({ err, workspace: workspaceId }, "could not remove the workspace's schedules");
    return 0;
  });
  await deps.deleteInstallation(workspaceId);
  await deps.disconnect(workspaceId);
  deps.forget(workspaceId);
  const keys = await dropKeys(deps.redis, deps.prefixOf(workspaceId));
  deps.logger.info(
    { workspace: workspaceId, schedules, keys },
    "workspace removed: tokens, connection and state deleted",
  );
}

/** app_uninstalled and tokens_revoked (bot tokens) remove the workspace. */
export function registerLifecycle(app: App, deps: RemoveWorkspaceDeps): void {
  app.event("app_uninstalled", async ({ context }) => {
    const id = workspaceIdOf(context);
    if (id) await removeWorkspace(deps, id);
  });
  app.event("tokens_revoked", async ({ event, context }) => {
    const id = workspaceIdOf(context);
    // A revoked user token leaves the bot working; only the bot's matters here.
    if (id && (event.tokens.bot?.length ?? 0) > 0) await removeWorkspace(deps, id);
  });
}

/** A workspace that uninstalls the app, or revokes its token, is removed (many workspaces). */
export function lifecycleFeature<D, Command>(deps: RemoveWorkspaceDeps): Feature<D, Command> {
  return { name: "lifecycle", interactions: (app) => registerLifecycle(app, deps) };
}
