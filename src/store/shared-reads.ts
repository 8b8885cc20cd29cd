/**
 * Reads of one key asked for while the same read is in flight share its answer: the deliveries
 * of a batch, worked at once, each ask for their group's subscriptions (and the workspace's
 * watches) in the same turn, and one command answers them all. Nothing is kept: a read asked
 * after the answer came goes to Redis again, so it sees every write made before it was asked,
 * as a read of its own would. Each caller gets its own copy of the array.
 */
export function sharedReads<K, V>(read: (key: K) => Promise<readonly V[]>): (key: K) => Promise<V[]> {
  const inFlight = new Map<K, Promise<readonly V[]>>();
  return async (key) => {
    let answer = inFlight.get(key);
    if (!answer) {
      answer = read(key).finally(() => inFlight.delete(key));
      inFlight.set(key, answer);
    }
    return [...(await answer)];
  };
}
