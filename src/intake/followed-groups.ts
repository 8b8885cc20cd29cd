import { stateKeys, workspaceStateKeys } from "../store/keys.js";
import { isCluster, type RedisClient } from "../store/redis.js";
import { SubscriptionStore } from "../store/subscriptions.js";
import { WatchStore } from "../store/watches.js";

/**
 * Whether anyone wants a group's deliveries (the intake pump's question): a channel that follows
 * it, or a person whose watch covers it (docs/personal.md: watches cover every group the
 * service sends, followed or not). Asked in the stores the delivery's job would be routed with:
 * in multi-workspace mode its workspace's (a delivery that names no workspace is kept: its job is
 * refused with the reason, visible to operators); in single-workspace mode the deployment's own.
 */
export function groupFollowed(
  redis: RedisClient,
  prefix: string,
  o: { multiWorkspace: boolean },
): (workspaceId: string | undefined, groupId: string) => Promise<boolean> {
  const cluster = isCluster(redis);
  const storesOf = (keys: ReturnType<typeof stateKeys>) => ({
    subscriptions: new SubscriptionStore(redis, keys),
    watches: new WatchStore(redis, keys),
  });
  const single = storesOf(stateKeys(prefix, { cluster }));
  const stores = new Map<string, ReturnType<typeof storesOf>>();
  // Watches are asked only about groups no channel follows.
  const wanted = async (s: ReturnType<typeof storesOf>, groupId: string) =>
    (await s.subscriptions.followed(groupId)) || (await s.watches.covers(groupId));
  return async (workspaceId, groupId) => {
    if (!o.multiWorkspace) return wanted(single, groupId);
    if (!workspaceId) return true;
    let store = stores.get(workspaceId);
    if (!store) {
      store = storesOf(workspaceStateKeys(prefix, workspaceId, { cluster }));
      stores.set(workspaceId, store);
    }
    return wanted(store, groupId);
  };
}
