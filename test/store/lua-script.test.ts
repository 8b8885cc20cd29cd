import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../src/log.js";
import { luaScript } from "../../src/store/lua-script.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("luaScript (EVALSHA, EVAL on NOSCRIPT)", () => {
  let redis: Redis;
  const prefix = uniquePrefix("lua");
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it("runs a script Redis has never seen (NOSCRIPT, then EVAL), and by its SHA afterwards", async () => {
    // A body of its own, so no other test has loaded it into the script cache.
    const lua = `-- ${randomUUID()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;
    const script = luaScript(lua);
    const key = `${prefix}:n`;
    expect(await script.run(redis, 1, key, 2)).toBe(2);
    const [known] = (await redis.script("EXISTS", sha1(lua))) as number[];
    expect(known).toBe(1);
    // Known now: the body does not cross the wire again.
    const evals = vi.spyOn(redis, "eval");
    const evalshas = vi.spyOn(redis, "evalsha");
    expect(await script.run(redis, 1, key, 3)).toBe(5);
    expect(evalshas).toHaveBeenCalledTimes(1);
    expect(evals).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it("passes a script's own error on instead of retrying it", async () => {
    const script = luaScript(`-- ${randomUUID()}\nreturn redis.call('NO_SUCH_COMMAND')`);
    await expect(script.run(redis, 0)).rejects.toThrow(/unknown command|Unknown Redis command/i);
  });
});

function sha1(s: string): string {
  return createHash("sha1").update(s).digest("hex");
}
