import type { Writable } from "node:stream";
import type { Cluster, Redis } from "ioredis";

const coalesced = new WeakSet<Writable>();

/**
 * Makes a socket send what is written to it within one turn of the event loop in one system
 * call: the first write of a turn corks it, and the turn's check phase (setImmediate) uncorks
 * it, which hands Node every chunk at once (one writev). ioredis writes each command, and each
 * pipeline, as soon as it is issued; the deliveries of a batch, processed at once, issue theirs
 * from many callbacks of the same turn (Redis replies, HTTP answers), and on a busy host each
 * write costs more CPU than the commands it carries (bench:steady, the profile's socket-write
 * frames). A command waits at most for the rest of its turn, never for another turn's I/O.
 */
export function coalesceWrites(stream: Writable): void {
  if (coalesced.has(stream)) return;
  coalesced.add(stream);
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = () => {
    corked = false;
    // Ended or destroyed meanwhile: end() already flushed what was corked.
    if (!stream.writableEnded && !stream.destroyed) stream.uncork();
  };
  stream.write = ((...args: unknown[]): boolean => {
    if (!corked && !stream.writableEnded && !stream.destroyed) {
      corked = true;
      stream.cork();
      setImmediate(uncork);
    }
    return write(...args);
  }) as Writable["write"];
}

/**
 * Coalesces the writes of every socket of a connection, now and after each reconnect: a Redis
 * gets a new socket on every connect, and a Cluster a connection per node, made as nodes appear.
 */
export function coalesceConnectionWrites(redis: Redis | Cluster): void {
  const each = (r: Redis) => {
    const hook = () => {
      if (r.stream) coalesceWrites(r.stream);
    };
    hook();
    r.on("connect", hook);
  };
  if ("isCluster" in redis && redis.isCluster) {
    const cluster = redis as Cluster;
    cluster.on("+node", each);
    for (const node of cluster.nodes()) each(node);
  } else {
    each(redis as Redis);
  }
}
