import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort, redisAnswers } from "./local-redis.js";

/*
 * A throwaway Redis Cluster of `redis-server --cluster-enabled yes` processes on free ports,
 * for the tests, the benchmarks and docker-less trials: masters with one replica each, built
 * with CLUSTER ADDSLOTSRANGE / MEET / REPLICATE over ioredis (no redis-cli needed). A short
 * node timeout makes a killed master fail over in a few seconds. Not used by the app itself.
 */

export interface ClusterNode {
  port: number;
  url: string;
  /** The node's cluster id (40 hex). */
  id: string;
  /** Running right now (false once killed). */
  alive: boolean;
}

export interface LocalRedisCluster {
  nodes: ClusterNode[];
  /** `host:port,host:port,...` of every node: what REDIS_CLUSTER_NODES takes. */
  seeds: string;
  /** The masters now (ports), asked of a live node. */
  masters(): Promise<number[]>;
  /** SIGKILLs that node (a crash); resolves once it no longer answers. */
  kill(port: number): Promise<void>;
  /** Kills a master and resolves once its replica serves its slots and the cluster is ok again; returns the new master's port. */
  failover(port: number): Promise<{ promoted: number; ms: number }>;
  /** The replicas of a master now (ports), asked of a live node. */
  replicasOf(port: number): Promise<number[]>;
  /** SIGSTOPs that node: it holds its connections and answers nothing, as a hung host does. */
  freeze(port: number): void;
  /** SIGCONTs a frozen node. */
  thaw(port: number): void;
  /**
   * Freezes a master (SIGSTOP) until its replica is promoted, then thaws it (SIGCONT): it comes
   * back as a replica of the promoted one. Resolves once the cluster is ok again.
   */
  stall(port: number): Promise<{ promoted: number; ms: number }>;
  /** Starts a killed node again with its old config: it rejoins as a replica. */
  restart(port: number): Promise<void>;
  /** Resolves once every live node says cluster_state:ok and sees the same masters. */
  waitOk(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const SLOTS = 16_384;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function admin(port: number): Redis {
  const r = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    // A frozen node accepts the connection and never answers.
    connectTimeout: 1_000,
    commandTimeout: 1_000,
  });
  r.on("error", () => undefined);
  return r;
}

async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = admin(port);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`local Redis Cluster: ${what} not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

interface NodeLine {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  masterId: string;
  slots: string[];
}

function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id = "", addr = "", flags = "", masterId = "", , , , , ...slots] = line.split(" ");
      return {
        id,
        port: Number(addr.split("@")[0]?.split(":")[1]),
        master: flags.includes("master"),
        failed: flags.split(",").includes("fail"),
        masterId,
        slots,
      };
    });
}

/**
 * Starts `masters` masters (default 3) with `replicasPerMaster` replicas each (default 1) and
 * resolves once the cluster is ok. `nodeTimeoutMs` (default 1,000) bounds failure detection.
 */
export async function startLocalRedisCluster(
  o: { masters?: number; replicasPerMaster?: number; nodeTimeoutMs?: number } = {},
): Promise<LocalRedisCluster> {
  const masterCount = o.masters ?? 3;
  const perMaster = o.replicasPerMaster ?? 1;
  const total = masterCount * (1 + perMaster);
  const dir = mkdtempSync(join(tmpdir(), "insight-relay-cluster-"));
  const children = new Map<number, ChildProcess>();
  const ports: number[] = [];
  for (let i = 0; i < total; i++) {
    let p = await freePort();
    while (ports.includes(p)) p = await freePort();
    ports.push(p);
  }
  const argsOf = (port: number) => [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    join(dir, `nodes-${port}.conf`),
    "--cluster-node-timeout",
    String(o.nodeTimeoutMs ?? 1_000),
    // A replica takes over however long it was cut off: a test kill must always fail over.
    "--cluster-replica-validity-factor",
    "0",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ];
  const launch = async (port: number) => {
    const c = spawn("redis-server", argsOf(port), { stdio: "ignore" });
    children.set(port, c);
    const failed = new Promise<never>((_, reject) =>
      c.once("error", (err) => reject(new Error(`redis-server could not be started: ${err.message}`))),
    );
    await Promise.race([
      until(`node ${port} up`, 10_000, () => redisAnswers(`redis://127.0.0.1:${port}`)),
      failed,
    ]);
  };
  const nodes: ClusterNode[] = [];
  try {
    await Promise.all(ports.map(launch));
    for (const port of ports) {
      const id = await ask(port, (r) => r.call("CLUSTER", "MYID") as Promise<string>);
      nodes.push({ port, url: `redis://127.0.0.1:${port}`, id, alive: true });
    }
    const masterNodes = nodes.slice(0, masterCount);
    await Promise.all(
      masterNodes.map((n, i) =>
        ask(n.port, async (r) => {
          const from = Math.floor((i * SLOTS) / masterCount);
          const to = Math.floor(((i + 1) * SLOTS) / masterCount) - 1;
          await r.call("CLUSTER", "ADDSLOTSRANGE", from, to);
          await r.call("CLUSTER", "SET-CONFIG-EPOCH", i + 1);
        }),
      ),
    );
    const [first] = nodes;
    if (!first) throw new Error("no nodes");
    for (const n of nodes.slice(1))
      await ask(n.port, (r) => r.call("CLUSTER", "MEET", "127.0.0.1", first.port));
    await until("every node meets every other", 15_000, async () => {
      for (const n of nodes) {
        const lines = parseNodes(await ask(n.port, (r) => r.call("CLUSTER", "NODES") as Promise<string>));
        if (lines.length !== total || lines.some((l) => l.port === 0)) return false;
      }
      return true;
    });
    for (const [i, n] of nodes.slice(masterCount).entries()) {
      const master = masterNodes[i % masterCount];
      if (!master) throw new Error("no master");
      await ask(n.port, (r) => r.call("CLUSTER", "REPLICATE", master.id));
    }
  } catch (err) {
    for (const c of children.values()) c.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const frozen = new Set<number>();
  /** Running and answering: neither killed nor frozen. */
  const live = () => nodes.filter((n) => n.alive && !frozen.has(n.port));
  const nodesNow = async (): Promise<NodeLine[]> => {
    for (const n of live()) {
      try {
        return parseNodes(await ask(n.port, (r) => r.call("CLUSTER", "NODES") as Promise<string>));
      } catch {
        // try the next live node
      }
    }
    throw new Error("no live node answers");
  };
  const mastersNow = async (): Promise<number[]> =>
    (await nodesNow())
      .filter((l) => l.master && !l.failed && l.slots.length > 0)
      .map((l) => l.port)
      .sort((a, b) => a - b);
  const signal = (port: number, sig: NodeJS.Signals) => {
    const c = children.get(port);
    if (!c || c.exitCode !== null || c.signalCode !== null)
      throw new Error(`no running node on port ${port}`);
    c.kill(sig);
  };
  const waitOk = async (timeoutMs = 30_000) => {
    await until("cluster_state:ok on every live node with a full set of masters", timeoutMs, async () => {
      for (const n of live()) {
        const info = await ask(n.port, (r) => r.call("CLUSTER", "INFO") as Promise<string>);
        if (!info.includes("cluster_state:ok")) return false;
        const lines = parseNodes(await ask(n.port, (r) => r.call("CLUSTER", "NODES") as Promise<string>));
        const serving = lines.filter((l) => l.master && l.slots.length > 0);
        if (serving.length !== masterCount) return false;
        if (serving.some((l) => !nodes.find((x) => x.port === l.port)?.alive)) return false;
        const replicas = lines.filter((l) => !l.master && !l.failed);
        if (replicas.length < live().length - masterCount) return false;
        // A replica whose first sync is still under way would lose writes to a failover.
        const repl = await ask(n.port, (r) => r.info("replication"));
        if (repl.includes("role:slave") && !repl.includes("master_link_status:up")) return false;
      }
      return true;
    });
  };
  await waitOk();

  const kill = async (port: number) => {
    const c = children.get(port);
    const node = nodes.find((n) => n.port === port);
    if (!c || !node) throw new Error(`no node on port ${port}`);
    node.alive = false;
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await exited;
    }
    await until(`node ${port} down`, 5_000, async () => !(await redisAnswers(node.url)));
  };

  return {
    nodes,
    seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(","),
    masters: mastersNow,
    async replicasOf(port) {
      const lines = await nodesNow();
      const master = lines.find((l) => l.port === port);
      if (!master) throw new Error(`no node on port ${port}`);
      return lines.filter((l) => l.masterId === master.id && !l.failed).map((l) => l.port);
    },
    freeze(port) {
      signal(port, "SIGSTOP");
      frozen.add(port);
    },
    thaw(port) {
      signal(port, "SIGCONT");
      frozen.delete(port);
    },
    kill,
    async failover(port) {
      const before = await mastersNow();
      if (!before.includes(port)) throw new Error(`${port} is not a master`);
      const started = Date.now();
      await kill(port);
      await waitOk(30_000);
      const after = await mastersNow();
      const promoted = after.find((p) => !before.includes(p));
      if (promoted === undefined) throw new Error("no replica was promoted");
      return { promoted, ms: Date.now() - started };
    },
    async stall(port) {
      const before = await mastersNow();
      if (!before.includes(port)) throw new Error(`${port} is not a master`);
      const started = Date.now();
      signal(port, "SIGSTOP");
      frozen.add(port);
      let promoted: number | undefined;
      try {
        await until("a replica promoted while its master is frozen", 30_000, async () => {
          promoted = (await mastersNow()).find((p) => !before.includes(p));
          return promoted !== undefined;
        });
      } finally {
        signal(port, "SIGCONT");
        frozen.delete(port);
      }
      const ms = Date.now() - started;
      await waitOk(30_000);
      if (promoted === undefined) throw new Error("no replica was promoted");
      return { promoted, ms };
    },
    async restart(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no node on port ${port}`);
      await launch(port);
      node.alive = true;
      await waitOk(30_000);
    },
    waitOk,
    async close() {
      const exits = [...children.values()]
        .filter((c) => c.exitCode === null && c.signalCode === null)
        .map((c) => {
          const exited = new Promise((r) => c.once("exit", r));
          c.kill("SIGKILL");
          return exited;
        });
      await Promise.all(exits);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `npx tsx dev/local-redis-cluster.ts`: starts one and prints REDIS_CLUSTER_NODES until Ctrl-C. */
if (import.meta.url === `file://${process.argv[1]}`) {
  void startLocalRedisCluster().then((c) => {
    process.stdout.write(`REDIS_CLUSTER_NODES=${c.seeds}\n`);
    const stop = () => void c.close().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
