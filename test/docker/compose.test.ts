import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config.js";

// There is no Docker engine nor compose plugin where the tests run, so the compose file is
// checked here as data: its structure, and every key against the compose specification's names.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const compose = parse(readFileSync("docker-compose.yml", "utf8"), { merge: true, uniqueKeys: true }) as Obj;
const services = (isObj(compose.services) ? compose.services : {}) as Record<string, Obj>;
const APP = ["web", "worker", "scheduler"] as const;

/** Service keys of the Compose Specification this file may use (a typo fails the test). */
const SERVICE_KEYS = new Set([
  "build",
  "command",
  "depends_on",
  "env_file",
  "environment",
  "healthcheck",
  "image",
  "init",
  "ports",
  "profiles",
  "restart",
  "stop_grace_period",
  "volumes",
]);

/** Every variable of DESIGN.md's environment table. */
const CONTRACT_VARS = [
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_API_URL",
  "INSIGHT_BASE_URL",
  "INSIGHT_API_KEY",
  "INSIGHT_API_VERSION",
  "INSIGHT_SEARCH_PARAM",
  "WEBHOOK_SECRET",
  "REDIS_URL",
  "REDIS_PREFIX",
  "PORT",
  "ROLE",
  "SPOOL_DIR",
  "ADMIN_USER_IDS",
  "OPS_CHANNEL_ID",
  "ADMIN_PASSWORD",
  "RECONCILE_INTERVAL",
  "WEEKLY_DEFAULT_CRON",
  "DEFAULT_TIMEZONE",
  "LOG_LEVEL",
  "PUBLIC_URL",
  "REDIS_CLUSTER_NODES",
  "SLACK_CLIENT_ID",
  "SLACK_CLIENT_SECRET",
  "SLACK_STATE_SECRET",
  "ENCRYPTION_KEY",
];

describe("docker-compose.yml", () => {
  it("has Redis and the app as separate web, worker and scheduler services", () => {
    const always = Object.keys(services).filter((n) => services[n]?.profiles === undefined);
    expect(always.sort()).toEqual(["redis", "scheduler", "web", "worker"]);
    for (const [name, s] of Object.entries(services)) {
      for (const key of Object.keys(s)) expect(SERVICE_KEYS.has(key), `${name}.${key}`).toBe(true);
    }
  });

  it("runs Redis 7 with AOF persistence on a named volume and a redis-cli ping health check", () => {
    const redis = services.redis ?? {};
    expect(String(redis.image)).toMatch(/^redis:7(\.|-|$)/);
    const command = (redis.command as string[]).join(" ");
    expect(command).toContain("--appendonly yes");
    expect(command).toContain("--maxmemory-policy noeviction");
    expect(redis.volumes).toEqual(["redis-data:/data"]);
    expect(Object.keys(compose.volumes as Obj)).toContain("redis-data");
    const hc = redis.healthcheck as Obj;
    expect(hc.test).toEqual(["CMD", "redis-cli", "ping"]);
  });

  it("configures each app service from .env, with its own ROLE, after Redis is healthy", () => {
    for (const name of APP) {
      const s = services[name] ?? {};
      expect(s.build, name).toBe(".");
      expect(s.image, name).toBe("insight-relay:local");
      expect(s.env_file, name).toEqual([{ path: ".env", required: false }]);
      const env = s.environment as Obj;
      expect(env.ROLE, name).toBe(name);
      expect(env.REDIS_URL, name).toBe("redis://redis:6379");
      expect(s.depends_on, name).toEqual({
        redis: { condition: "service_healthy" },
        "redis-cluster-init": { condition: "service_completed_successfully", required: false },
      });
      // Blank unless the operator sets it: blank means one Redis (config.ts).
      expect(env.REDIS_CLUSTER_NODES, name).toBe("${REDIS_CLUSTER_NODES:-}");
      expect(s.restart, name).toBe("unless-stopped");
    }
  });

  it("publishes only the web port and health-checks /healthz there; workers scale freely", () => {
    const web = services.web ?? {};
    expect(web.ports).toEqual(["${PORT:-3000}:3000"]);
    expect((web.environment as Obj).PORT).toBe("3000");
    const test = (web.healthcheck as Obj).test as string[];
    expect(test.slice(0, 2)).toEqual(["CMD", "node"]);
    expect(test.join(" ")).toContain("http://127.0.0.1:3000/healthz");
    // Anonymous volume: one spool per web container, never shared.
    expect(web.volumes).toEqual(["/app/data/spool"]);
    for (const name of ["worker", "scheduler"] as const) {
      expect(services[name]?.ports, name).toBeUndefined();
      expect(services[name]?.volumes, name).toBeUndefined();
    }
  });
});

describe("docker-compose.yml --profile cluster", () => {
  const nodes = Object.keys(services).filter((n) => n.startsWith("redis-node-"));

  it("adds 6 Redis Cluster nodes and a one-shot init, all in the cluster profile only", () => {
    expect(nodes.sort()).toEqual([1, 2, 3, 4, 5, 6].map((i) => `redis-node-${i}`));
    for (const n of [...nodes, "redis-cluster-init"]) expect(services[n]?.profiles, n).toEqual(["cluster"]);
  });

  it("runs each node cluster-enabled with AOF, noeviction, its service name announced, its own volume", () => {
    for (const n of nodes) {
      const s = services[n] ?? {};
      expect(String(s.image)).toMatch(/^redis:7(\.|-|$)/);
      const command = (s.command as string[]).join(" ");
      expect(command).toContain("--cluster-enabled yes");
      expect(command).toContain("--appendonly yes");
      expect(command).toContain("--maxmemory-policy noeviction");
      expect(command).toContain(`--cluster-announce-hostname ${n}`);
      expect(command).toContain("--cluster-preferred-endpoint-type hostname");
      expect(s.volumes).toEqual([`${n}:/data`]);
      expect(Object.keys(compose.volumes as Obj)).toContain(n);
      expect((s.healthcheck as Obj).test).toEqual(["CMD", "redis-cli", "ping"]);
    }
  });

  it("forms 3 masters with a replica each once every node is healthy, and is a no-op when formed", () => {
    const init = services["redis-cluster-init"] ?? {};
    expect(Object.keys(init.depends_on as Obj).sort()).toEqual(nodes.sort());
    const script = (init.command as string[]).join(" ");
    expect(script).toMatch(/cluster info \| grep -q cluster_state:ok \|\|/);
    expect(script).toContain("--cluster create");
    expect(script).toContain("--cluster-replicas 1");
    for (const n of nodes) expect(script).toContain(`${n}:6379`);
  });

  it("the seeds the header tells operators to set are a valid REDIS_CLUSTER_NODES", () => {
    const text = readFileSync("docker-compose.yml", "utf8");
    const seeds = /REDIS_CLUSTER_NODES=(\S+)/.exec(text)?.[1] ?? "";
    for (const seed of seeds.split(",")) expect(nodes).toContain(seed.split(":")[0]);
    const parsed = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "s".repeat(20),
      INSIGHT_BASE_URL: "https://insight.example.com",
      INSIGHT_API_KEY: "k",
      WEBHOOK_SECRET: "w".repeat(32),
      REDIS_URL: "redis://redis:6379",
      REDIS_CLUSTER_NODES: seeds,
    });
    expect(parsed.ok ? parsed.config.redis.clusterNodes?.length : parsed.errors).toBe(3);
  });
});

describe("Dockerfile", () => {
  const text = readFileSync("Dockerfile", "utf8");
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));

  it("builds in one stage and runs in another, on a current Node LTS slim image", () => {
    const from = lines.filter((l) => l.startsWith("FROM "));
    expect(from).toEqual(["FROM ${NODE_IMAGE} AS build", "FROM ${NODE_IMAGE} AS runtime"]);
    expect(lines).toContain("ARG NODE_IMAGE=node:22-slim");
  });

  it("runs npm ci + npm run build, then npm ci --omit=dev and node dist/main.js (as npm start does) as a non-root user", () => {
    const runtimeAt = lines.indexOf("FROM ${NODE_IMAGE} AS runtime");
    const build = lines.slice(0, runtimeAt);
    const runtime = lines.slice(runtimeAt);
    expect(build).toContain("RUN npm ci --no-audit --no-fund");
    expect(build).toContain("RUN npm run build");
    // `npm run build` is scripts/build.ts over src/, with tsconfig.json's settings.
    const built = build.indexOf("RUN npm run build");
    for (const copy of [
      "COPY tsconfig.json ./",
      "COPY scripts/build.ts ./scripts/",
      "COPY scripts/bundle ./scripts/bundle",
      "COPY src ./src",
    ])
      expect(build.indexOf(copy), copy).toBeGreaterThan(-1);
    expect(build.findLastIndex((l) => l.startsWith("COPY "))).toBeLessThan(built);
    expect(runtime.some((l) => l.startsWith("RUN npm ci --omit=dev"))).toBe(true);
    expect(runtime).toContain("COPY --from=build /app/dist ./dist");
    const user = runtime.findIndex((l) => l.startsWith("USER "));
    expect(runtime[user]).toBe("USER node");
    // The same Node flags as `npm start` (the heap limit that bounds peak RSS, V8's helper threads).
    const start = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } }).scripts
      .start;
    expect(start).toBe("node --max-old-space-size=1024 --v8-pool-size=2 dist/main.js");
    expect(runtime.at(-1)).toBe(`CMD ${JSON.stringify(start.split(" ")).replaceAll(",", ", ")}`);
    expect(user).toBeLessThan(runtime.length - 1);
  });

  it("keeps secrets and local state out of the build context", () => {
    const ignore = readFileSync(".dockerignore", "utf8").split("\n");
    for (const entry of [".env", "node_modules", "dist", "data", ".git"]) expect(ignore).toContain(entry);
  });
});

describe(".env.example", () => {
  const text = readFileSync(".env.example", "utf8");
  const vars = parseEnv(text);

  it("lists every variable of the operator contract, each under a one-line comment", () => {
    expect(Object.keys(vars).sort()).toEqual([...CONTRACT_VARS].sort());
    const lines = text.split("\n");
    for (const name of CONTRACT_VARS) {
      const at = lines.findIndex((l) => l.startsWith(`${name}=`));
      expect(lines[at - 1], name).toMatch(/^# \S/);
    }
  });

  it("names the same variables as DESIGN.md's table, when ../shared is beside the repository", () => {
    const design = "../shared/DESIGN.md";
    if (!existsSync(design)) return;
    // A row may name several variables that go together: | `A`, `B`, `C` | ...
    const rows = [...readFileSync(design, "utf8").matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|/gm)];
    const table = rows.flatMap((m) => [...(m[1] ?? "").matchAll(/`([A-Z_]+)`/g)].map((n) => n[1]));
    expect(table.length).toBeGreaterThan(0);
    expect([...table].sort()).toEqual([...CONTRACT_VARS].sort());
  });

  it("is a valid configuration once the required values are filled in (empty means default)", () => {
    const filled = {
      ...vars,
      SLACK_BOT_TOKEN: "xoxb-1-2-3",
      SLACK_SIGNING_SECRET: "s",
      INSIGHT_BASE_URL: "https://insight.example.com",
      INSIGHT_API_KEY: "k",
      WEBHOOK_SECRET: "0123456789abcdef",
    };
    const r = loadConfig(filled);
    expect(r.ok ? r.config.port : r.errors).toBe(3000);
    // As shipped, exactly the five required variables are reported.
    const empty = loadConfig(vars);
    expect(empty.ok ? [] : empty.errors.map((e) => e.split(" ")[0]).sort()).toEqual([
      "INSIGHT_API_KEY",
      "INSIGHT_BASE_URL",
      "SLACK_BOT_TOKEN",
      "SLACK_SIGNING_SECRET",
      "WEBHOOK_SECRET",
    ]);
  });
});
