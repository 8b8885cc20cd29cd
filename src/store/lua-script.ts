import { createHash } from "node:crypto";
import type { RedisClient } from "./redis.js";

type Arg = string | number | Buffer;

interface BufferEval {
  evalshaBuffer(sha: string, numKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
  evalBuffer(lua: string, numKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
}

/**
 * A Lua script run by its SHA-1 (EVALSHA): the body crosses the wire only the first time a
 * Redis node sees it (NOSCRIPT, after a restart or SCRIPT FLUSH), not on every call as EVAL
 * sends it. On a cluster each node learns it on its own first NOSCRIPT.
 */
export interface LuaScript {
  run(redis: RedisClient, numKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
  /** The same, with bulk replies as Buffers (binary values). */
  runBuffer(redis: RedisClient, numKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
}

export function luaScript(lua: string): LuaScript {
  const sha = createHash("sha1").update(lua).digest("hex");
  return {
    // No async wrapper: on the webhook's ack path this adds no promise hop beyond the fallback's.
    run: (redis, numKeys, ...keysAndArgs) =>
      redis
        .evalsha(sha, numKeys, ...keysAndArgs)
        .catch((err: unknown) =>
          err instanceof Error && err.message.startsWith("NOSCRIPT")
            ? redis.eval(lua, numKeys, ...keysAndArgs)
            : Promise.reject(err),
        ),
    runBuffer: (redis, numKeys, ...keysAndArgs) => {
      // ioredis has a Buffer form of every command (untyped for these two); `callBuffer` would
      // lose its command name on an auto-pipelined connection.
      const r = redis as unknown as BufferEval;
      return r
        .evalshaBuffer(sha, numKeys, ...keysAndArgs)
        .catch((err: unknown) =>
          err instanceof Error && err.message.startsWith("NOSCRIPT")
            ? r.evalBuffer(lua, numKeys, ...keysAndArgs)
            : Promise.reject(err),
        );
    },
  };
}
