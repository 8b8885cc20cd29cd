import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { freePort } from "../helpers/global-redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

// What the Dockerfile does, without Docker: `npm run build` (scripts/build.ts), then
// `node dist/main.js`. The output goes under node_modules/.cache so that it resolves the
// repository's node_modules like dist/ does, and never touches a developer's dist/.
const OUT = resolve("node_modules/.cache", `insight-relay-build-test-${process.pid}`);
const TSX = resolve("node_modules/.bin/tsx");

function run(cmd: string, args: string[], o: { env?: Record<string, string>; cwd?: string } = {}) {
  return new Promise<{ code: number; out: string }>((done) => {
    execFile(cmd, args, { ...o, encoding: "utf8", timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
}

describe("the production build", () => {
  let emulator: Emulator;
  let slack: SlackStandIn;
  const cwd = mkdtempSync(join(tmpdir(), "insight-relay-build-cwd-"));
  let build: { code: number; out: string };

  beforeAll(async () => {
    [emulator, slack, build] = await Promise.all([
      startEmulator(),
      startSlackStandIn(),
      run(TSX, ["scripts/build.ts", "--outdir", OUT]),
    ]);
  }, 150_000);
  afterAll(async () => {
    await emulator?.close();
    await slack?.close();
    rmSync(OUT, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it("bundles main.js and doctor.js, each with its source map, from src/, zod, Bolt and scripts/bundle/", () => {
    expect(build.out).toBe("");
    expect(build.code).toBe(0);
    for (const f of ["main.js", "main.js.map", "doctor.js", "doctor.js.map"]) {
      expect(existsSync(join(OUT, f)), f).toBe(true);
    }
    // One file per entry, not one per module.
    for (const f of ["config.js", "compose", "admin"]) expect(existsSync(join(OUT, f)), f).toBe(false);
    const { sources } = JSON.parse(readFileSync(join(OUT, "main.js.map"), "utf8")) as { sources: string[] };
    // Each source as a path from the repository's root.
    const paths = sources.map((s) => relative(process.cwd(), resolve(OUT, s)));
    expect(paths).toContain("src/compose/start-roles.ts");
    expect(paths).toContain("src/admin/feature.ts");
    // The demo, the emulator and the stand-in Slack live in dev/ since issue 10: never in the image.
    // Every package but zod and Bolt loads from node_modules; zod is bundled without what the app
    // never names (its 60 locales but English), Bolt without Socket Mode; three packages are
    // taken from scripts/bundle/.
    const bundled = ["src/", "node_modules/zod/", "node_modules/@slack/bolt/", "scripts/bundle/"];
    expect(paths.filter((p) => !bundled.some((b) => p.startsWith(b)))).toEqual([]);
    expect(paths.filter((p) => p.includes("zod/v4/locales/"))).toEqual(["node_modules/zod/v4/locales/en.js"]);
    expect(paths.filter((p) => p.startsWith("scripts/bundle/")).sort()).toEqual([
      "scripts/bundle/bullmq.mjs",
      "scripts/bundle/no-socket-mode.mjs",
      "scripts/bundle/undici.mjs",
    ]);
    // Nothing loads the indexes of the three: BullMQ's other backends, undici's fetch and WebSocket.
    const text = readFileSync(join(OUT, "main.js"), "utf8");
    expect(text).not.toMatch(/from "(bullmq|undici)"|require\("(bullmq|undici|@slack\/socket-mode)"\)/);
    expect(text).toContain('from "bullmq/dist/cjs/classes/worker.js"');
  });

  it("writes the bundle in ASCII, so V8 holds its source at one byte a character", () => {
    const text = readFileSync(join(OUT, "main.js"), "utf8");
    expect(text).toContain("has changed \\u2014 *"); // a DM's dash, escaped
    expect(text).not.toMatch(/[\u0080-\uffff]/);
  });

  it("node dist/main.js without configuration: one line per missing variable, exit 1", async () => {
    const r = await run(process.execPath, [join(OUT, "main.js")], {
      cwd,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(r.code).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines).toContain("insight-relay: SLACK_BOT_TOKEN is missing");
    expect(lines.every((l) => l.startsWith("insight-relay: "))).toBe(true);
    expect(r.out).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("node dist/main.js with configuration: serves /healthz, /readyz and the admin page; stops on SIGTERM", async () => {
    const port = await freePort();
    const prefix = uniquePrefix("build");
    const spool = mkdtempSync(join(tmpdir(), "insight-relay-build-spool-"));
    const child = spawn(process.execPath, [join(OUT, "main.js")], {
      cwd,
      env: {
        PATH: process.env.PATH ?? "",
        SLACK_BOT_TOKEN: "xoxb-build-test-token",
        SLACK_SIGNING_SECRET: "build-test-signing-secret",
        SLACK_API_URL: slack.url,
        INSIGHT_BASE_URL: emulator.baseUrl,
        INSIGHT_API_KEY: emulator.apiKey,
        WEBHOOK_SECRET: "build-test-webhook-secret",
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: prefix,
        PORT: String(port),
        SPOOL_DIR: spool,
        ADMIN_PASSWORD: "build-test-admin",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      let health = 0;
      for (let i = 0; i < 200 && health !== 200; i++) {
        health = await request(`${base}/healthz`)
          .then(async (res) => {
            await res.body.dump();
            return res.statusCode;
          })
          .catch(() => 0);
        if (health !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(health, out).toBe(200);
      const ready = await request(`${base}/readyz`);
      expect(ready.statusCode).toBe(200);
      // ROLE=all: the workers run on the process's second thread, and readiness answers for them.
      const checks = ((await ready.body.json()) as { checks: Record<string, string> }).checks;
      expect(checks).toMatchObject({ redis: "ok", "worker:deliveries": "ok", "worker:slack-out": "ok" });
      if (process.platform === "linux") {
        // That thread yields to the web thread (a nice value 10 higher); every other keeps the process's.
        const niceOf = (tid: string) =>
          Number(readFileSync(`/proc/${child.pid}/task/${tid}/stat`, "utf8").split(") ")[1]?.split(" ")[16]);
        const base = niceOf(String(child.pid));
        const nice = readdirSync(`/proc/${child.pid}/task`).map(niceOf);
        const lower = Math.min(19, base + 10);
        expect(nice.filter((n) => n === lower)).toHaveLength(1);
        expect(nice.filter((n) => n !== lower).every((n) => n === base)).toBe(true);
      }
      const admin = await request(`${base}/admin/queues`, {
        headers: { authorization: `Basic ${Buffer.from("admin:build-test-admin").toString("base64")}` },
      });
      expect(admin.statusCode).toBe(200);
      await admin.body.dump();
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      // Structured JSON logs on stdout, whole lines from both threads; the second thread's say so.
      const lines = out.split("\n").filter(Boolean);
      const logged = lines.map((l) => JSON.parse(l) as { name?: string; thread?: string; msg?: string });
      expect(logged[0]).toMatchObject({ name: "insight-relay" });
      expect(logged).toContainEqual(expect.objectContaining({ thread: "roles", msg: "intake pump leads" }));
      expect(logged).toContainEqual(expect.objectContaining({ msg: "web role listening" }));
      expect(out).not.toContain("build-test-signing-secret");
    } finally {
      child.kill("SIGKILL");
      rmSync(spool, { recursive: true, force: true });
      await dropPrefix(prefix).catch(() => undefined);
    }
  }, 60_000);
});
