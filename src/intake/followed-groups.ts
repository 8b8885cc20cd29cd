import { stateKeys, workspaceStateKeys } from "../store/keys.js";
import { isCluster, type RedisClient } from "../store/redis.js";
import { SubscriptionStore } from "../store/subscriptions.js";

/**
 * Whether any channel follows a group (the intake pump's question), in the stores the delivery's
 * job would be routed with: in multi-workspace mode its workspace's; a job without a workspace
 * there runs for every workspace (Workspaces.wrap), so it is always kept. In single-workspace
 * mode the deployment's own, whatever the entry says (its worker is not wrapped).
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
