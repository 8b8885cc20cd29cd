import { DeliveryHealthStore } from "../store/delivery-health.js";
import { stateKeys, workspaceStateKeys } from "../store/keys.js";
import { isCluster, type RedisClient } from "../store/redis.js";
import type { ReceiptBook } from "./receipts.js";

/**
 * Where the intake pump records a delivery's receipt: under its workspace's prefix (its own
 * de-duplication, health and dead letters), or the deployment's for a delivery without one.
 */
export function receiptBooks(
  redis: RedisClient,
  prefix: string,
): (workspaceId: string | undefined) => ReceiptBook & { health: DeliveryHealthStore } {
  const cluster = isCluster(redis);
  const books = new Map<string | undefined, ReceiptBook & { health: DeliveryHealthStore }>();
  return (workspaceId) => {
    let book = books.get(workspaceId);
    if (!book) {
      const keys = workspaceId
        ? workspaceStateKeys(prefix, workspaceId, { cluster })
        : stateKeys(prefix, { cluster });
      book = { keys, health: new DeliveryHealthStore(redis, keys) };
      books.set(workspaceId, book);
    }
    return book;
  };
}
