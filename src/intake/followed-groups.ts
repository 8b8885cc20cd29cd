import { stateKeys, workspaceStateKeys } from "../store/keys.js";
import { isCluster, type RedisClient } from "../store/redis.js";
import { SubscriptionStore } from "../store/subscriptions.js";

/**
 * Whether any channel follows a group (the intake pump's question), in the stores the delivery's
 * job would be routed with: in multi-workspace mode its workspace's (a delivery that names no
 * workspace is kept: its job is refused with the reason, visible to operators); in
 * single-workspace mode the deployment's own.
 */
export function groupFollowed(
  redis: RedisClient,
  prefix: string,
  o: { multiWorkspace: boolean },
): (workspaceId: string | undefined, groupId: string) => Promise<boolean> {
  const cluster = isCluster(redis);
  const single = new SubscriptionStore(redis, stateKeys(prefix, { cluster }));
  const stores = new Map<string, SubscriptionStore>();
  return async (workspaceId, groupId) => {
    if (!o.multiWorkspace) return single.followed(groupId);
    if (!workspaceId) return true;
    let store = stores.get(workspaceId);
    if (!store) {
      store = new SubscriptionStore(redis, workspaceStateKeys(prefix, workspaceId, { cluster }));
      stores.set(workspaceId, store);
    }
    return store.followed(groupId);
  };
}
