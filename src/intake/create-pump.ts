import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { idleLookSeconds } from "../store/idle-look.js";
import { stateKeys } from "../store/keys.js";
import { createRedis, isCluster, type RedisClient, type RedisTarget } from "../store/redis.js";
import { IntakePump, type IntakeProducer } from "./pump.js";
import { receiptBooks } from "./receipt-books.js";

export interface IntakePumpOptions {
  /** Commands (a `shared`-kind connection): the lease, the batches and the receipts. */
  redis: RedisClient;
  /**
   * The pump's own blocking connection (it waits on the intake with BLMOVE), or where to open
   * one; either way its `close` disconnects it.
   */
  blocking: RedisClient | RedisTarget;
  prefix: string;
  /** The deliveries queue a workspace's deliveries are added to (undefined: the deployment's own). */
  deliveriesFor: (workspaceId: string | undefined) => IntakeProducer;
  /** Whether a delivery's group is wanted by anyone (else it is dropped, counted); default: all are. */
  followed?: (workspaceId: string | undefined, groupId: string) => Promise<boolean>;
  metrics?: Pick<Metrics, "deliveries" | "deadLetters" | "unfollowedDeliveries">;
  logger: Logger;
  leaseMs?: number;
  /** How long a woken pump lets deliveries gather (intake/pump.ts `DEFAULT_LINGER_MS`). */
  lingerMs?: number;
}

/**
 * The one way an intake pump is made (the worker role, and the tests): its keys and receipt
 * books under the deployment's prefix (a workspace's receipts under its own), and a blocking
 * connection of its own, which its `close` disconnects.
 */
export function createIntakePump(o: IntakePumpOptions): IntakePump {
  const cluster = isCluster(o.redis);
  return new IntakePump({
    redis: o.redis,
    blocking: "url" in o.blocking ? createRedis(o.blocking, "blocking", o.logger) : o.blocking,
    keys: stateKeys(o.prefix, { cluster }),
    // As long as an idle worker's: the same bound on a frozen cluster master holding the wait.
    waitSeconds: idleLookSeconds(o.redis),
    deliveriesFor: o.deliveriesFor,
    receiptsFor: receiptBooks(o.redis, o.prefix),
    ...(o.metrics ? { metrics: o.metrics, unfollowed: o.metrics.unfollowedDeliveries } : {}),
    ...(o.followed ? { followed: o.followed } : {}),
    logger: o.logger,
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    ...(o.lingerMs !== undefined ? { lingerMs: o.lingerMs } : {}),
  });
}
