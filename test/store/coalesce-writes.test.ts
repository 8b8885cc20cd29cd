import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { coalesceWrites } from "../../src/store/coalesce-writes.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const nextTurn = () => new Promise((r) => setImmediate(r));

/** A stream that records what reaches it in each call (one call: one system call on a socket). */
function recording(): { stream: Writable; calls: string[][] } {
  const calls: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      calls.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      calls.push(chunks.map((c) => String(c.chunk)));
      done();
    },
  });
  return { stream, calls };
}

describe("coalesced writes", () => {
  it("hands what one turn writes, from callbacks and promise continuations, to the stream at once", async () => {
    const { stream, calls } = recording();
    coalesceWrites(stream);
    stream.write("a");
    await Promise.resolve();
    stream.write("b");
    process.nextTick(() => stream.write("c"));
    await nextTurn();
    expect(calls).toEqual([["a", "b", "c"]]);
    // The next turn's writes are the next call: nothing waits longer than its turn.
    stream.write("d");
    await nextTurn();
    expect(calls).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("is applied once, and a stream ended within the turn has flushed everything", async () => {
    const { stream, calls } = recording();
    coalesceWrites(stream);
    coalesceWrites(stream);
    stream.write("a");
    stream.end("b");
    await nextTurn();
    expect(calls.flat()).toEqual(["a", "b"]);
  });

  describe("on a Redis connection", () => {
    const redis = createRedis(testRedisUrl(), "shared", silentLogger);
    const prefix = uniquePrefix("coalesce");
    afterAll(async () => {
      redis.disconnect();
      await dropPrefix(prefix);
    });

    it("corks its socket for the rest of a turn once a command is written, also after a reconnect", async () => {
      await redis.ping();
      const sent = redis.set(`${prefix}:a`, "1");
      expect(redis.stream.writableCorked).toBe(1);
      await nextTurn();
      expect(redis.stream.writableCorked).toBe(0);
      await sent;
      const before = redis.stream;
      redis.disconnect(true);
      await new Promise<void>((resolve) => redis.once("ready", () => resolve()));
      expect(redis.stream).not.toBe(before);
      const replies = await Promise.all([redis.incr(`${prefix}:n`), redis.incr(`${prefix}:n`)]);
      expect(replies).toEqual([1, 2]);
      const read = redis.get(`${prefix}:a`);
      expect(redis.stream.writableCorked).toBe(1);
      expect(await read).toBe("1");
    });
  });
});
