import { createHash } from "node:crypto";
import type { RedisClient } from "./redis.js";

type Arg = string | number | Buffer;

/**
 * A Lua script run by its SHA-1 (EVALSHA): the body crosses the wire only the first time a
 * Redis node sees it (NOSCRIPT, after a restart or SCRIPT FLUSH), not on every call as EVAL
 * sends it. On a cluster each node learns it on its own first NOSCRIPT.
 */
export interface LuaScript {
  run(redis: RedisClient, numKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
}

export function luaScript(lua: string): LuaScript {
  const sha = createHash("sha1").update(lua).digest("hex");
  return {
    async run(redis, numKeys, ...keysAndArgs) {
      try {
        return await redis.evalsha(sha, numKeys, ...keysAndArgs);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
        return redis.eval(lua, numKeys, ...keysAndArgs);
      }
    },
  };
}
