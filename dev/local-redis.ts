import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

/*
 * Local Redis helpers shared by the demo, the tests and the benchmarks: is one answering,
 * start a throwaway one, clear a key prefix. Not used by the app itself.
 */

/** Whether a Redis answers PING at `url` within about a second. */
export async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export const redisServerInstalled = (): boolean =>
  spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** A redis-server of one's own on a free port, that can be stopped and started again. */
export interface ThrowawayRedis {
  url: string;
  /** Its data directory (with `persist`, the append-only files are under `appendonlydir/`). */
  dir: string;
  /** Starts it (again); resolves once it answers. */
  start(): Promise<void>;
  /** Kills it (SIGKILL: a crash, not a shutdown); resolves once it no longer answers. */
  stop(): Promise<void>;
  /**
   * A power cut, with `persist`: kills it (SIGKILL) and drops what its append-only file took in
   * the last `lostMs` (the writes an fsync every second can lose), as if the machine had gone
   * down before the disk had them. Start it again afterwards.
   */
  powerCut(lostMs: number): Promise<{ lostBytes: number }>;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

/** The append-only file that takes the writes now (Redis 7: the manifest's `type i` file). */
function incrementalAof(dir: string): string {
  const aofDir = join(dir, "appendonlydir");
  const manifest = readFileSync(join(aofDir, "appendonly.aof.manifest"), "utf8");
  const file = /^file (\S+) seq \d+ type i$/m.exec(manifest)?.[1];
  if (!file) throw new Error("no incremental append-only file in the manifest");
  return join(aofDir, file);
}

async function waitUntil(url: string, up: boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await redisAnswers(url)) === up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server at ${url} did not come ${up ? "up" : "down"}`);
}

/**
 * Starts a throwaway redis-server. `persist: true` keeps an append-only file in its data
 * directory, so data survives `stop()` + `start()` (chaos tests); otherwise nothing is kept.
 */
export async function startThrowawayRedis(opts: { persist?: boolean } = {}): Promise<ThrowawayRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "insight-relay-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir];
  // As docker-compose runs it: fsync'ed every second, so a power cut loses at most the last one.
  args.push("--appendonly", opts.persist ? "yes" : "no", "--appendfsync", "everysec");
  const own: ThrowawayRedis = {
    url,
    dir,
    async start() {
      const c = spawn("redis-server", args, { stdio: "ignore" });
      child = c;
      const failed = new Promise<never>((_, reject) => {
        c.once("error", (err) => reject(new Error(`redis-server could not be started: ${err.message}`)));
      });
      await Promise.race([waitUntil(url, true), failed]);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await exited;
      await waitUntil(url, false);
    },
    async powerCut(lostMs) {
      const aof = incrementalAof(dir);
      const kept = statSync(aof).size;
      await new Promise((r) => setTimeout(r, lostMs));
      await own.stop();
      const lostBytes = statSync(aof).size - kept;
      truncateSync(aof, kept);
      return { lostBytes };
    },
    async close() {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}

/** Deletes every key under `prefix:` (a test's, a demo's or a benchmark's own keys). */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  r.on("error", () => undefined);
  try {
    await r.connect();
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await r.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}
