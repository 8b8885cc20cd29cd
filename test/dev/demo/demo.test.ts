import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../helpers/global-redis.js";
import { testRedisUrl, uniquePrefix } from "../../helpers/redis.js";

const TSX = resolve("node_modules/.bin/tsx");
const DEMO = resolve("dev/demo/main.ts");

interface Run {
  code: number;
  out: string;
}

/** `npm run demo`'s script as a child process, with only the environment given. */
function demo(env: Record<string, string>, args: string[] = []): Promise<Run> {
  return new Promise((done) => {
    execFile(
      TSX,
      [DEMO, ...args],
      { env, encoding: "utf8", timeout: 60_000, maxBuffer: 10 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        done({ code, out: stdout + stderr });
      },
    );
  });
}

async function keysUnder(prefix: string): Promise<string[]> {
  const r = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  try {
    return await r.keys(`${prefix}:*`);
  } finally {
    r.disconnect();
  }
}

describe("npm run demo", () => {
  const outDir = mkdtempSync(join(tmpdir(), "insight-relay-demo-test-"));
  const prefix = uniquePrefix("demo");
  let run: Run;

  beforeAll(async () => {
    run = await demo({
      PATH: process.env.PATH ?? "",
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: prefix,
      DEMO_OUT_DIR: outDir,
    });
  }, 90_000);
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it("runs with no credentials and exits 0", () => {
    expect(run.out).toContain("Demo finished in");
    expect(run.code).toBe(0);
    for (let n = 1; n <= 10; n++) expect(run.out).toContain(`[${n}/10]`);
    expect(run.out).not.toContain("problem(s)");
  });

  it("shows the digest posted, then edited in place on re-enrichment", () => {
    const lines = run.out.split("\n");
    // The first new message is the subscription's own public line; the digest comes after it.
    const posted = lines.findIndex(
      (l, i) =>
        l.includes("slack > new message in #community-insights:") &&
        !lines[i + 1]?.includes("subscribed this channel"),
    );
    expect(posted).toBeGreaterThan(0);
    expect(lines[posted + 1]).toContain("Replica lag after upgrading to 4.2");
    expect(run.out).toMatch(/Sentiment:\* :red_circle: Negative/);
    // Two edits on re-enrichment, one when new messages change the lag thread's counts.
    expect(run.out.match(/slack > message edited in #community-insights:/g)).toHaveLength(3);
    expect(run.out).toMatch(/\*Messages:\* 8 \| \*Participants:\* 5/);
    expect(run.out).toContain("Fixed in 4.2.1");
    expect(run.out).toContain("3 messages counted for Lumen DB Support");
  });

  /** The output of step `n` (from its header to the next). */
  const step = (n: number) => {
    const from = run.out.indexOf(`[${n}/10]`);
    const to = run.out.indexOf(`[${n + 1}/10]`);
    return run.out.slice(from, to < 0 ? undefined : to);
  };

  it("answers every /insight subcommand it plays (groups, subscribe, threads, search, weekly now, status)", () => {
    expect(run.out).not.toContain("not available in this build yet");
    const commands: [number, string][] = [
      [2, "groups"],
      [3, `subscribe ${"6650c0de0200000000000001"}`],
      [7, "threads last7Days"],
      [8, "search upgrade lag"],
      [9, "weekly now"],
      [10, "status"],
    ];
    for (const [n, text] of commands) {
      expect(step(n), text).toContain(`you   > /insight ${text}`);
      expect(step(n), text).toContain("slack > reply only you can see:");
    }
    expect(step(2)).toContain("Lumen DB Support (`6650c0de0200000000000001`)");
    expect(step(3)).toContain("Lumen DB Support");
    // The thread the tour created is listed and found, under its re-enriched state.
    expect(step(7)).toContain("Replica lag after upgrading to 4.2");
    expect(step(8)).toContain("Replica lag after upgrading to 4.2");
    // weekly now: a summary posted in the channel, and its chart as a file.
    expect(step(9)).toContain("slack > new message in #community-insights:");
    expect(step(9)).toContain("Lumen DB Support");
    expect(step(9)).toMatch(/file shared in #community-insights: \S+\.png, \d+ bytes/);
    expect(step(10)).toContain("chatthread-crud");
  });

  it("says what happened and where to look", () => {
    expect(run.out).toContain("webhook deliveries received and acknowledged: 7 (7 queued for the workers)");
    expect(run.out).toMatch(/Slack: 4 messages posted, 3 edited in place, 1 file\(s\), 6 command replies/);
    expect(run.out).toContain(join(outDir, "slack-blocks.jsonl"));
    expect(run.out).toContain(join(outDir, "app.log"));
  });

  it("keeps the Block Kit JSON of every post, edit and reply in a file", () => {
    const lines = readFileSync(join(outDir, "slack-blocks.jsonl"), "utf8").split("\n").filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as { method: string; blocks?: { type: string }[] });
    const methods = records.map((r) => r.method);
    // The subscription's public line, the digest, the weekly summary and its chart's message.
    expect(methods.filter((m) => m === "chat.postMessage")).toHaveLength(4);
    expect(methods.filter((m) => m === "chat.update")).toHaveLength(3);
    expect(methods.filter((m) => m === "response_url")).toHaveLength(6);
    const first = records.find((r) => r.method === "chat.postMessage" && (r.blocks?.length ?? 0) > 0);
    expect(first?.blocks?.[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "Replica lag after upgrading to 4.2" },
    });
  });

  it("writes the app's logs as JSON lines, without the demo's secrets", () => {
    const text = readFileSync(join(outDir, "app.log"), "utf8");
    const lines = text.split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    expect(text).toContain('"msg":"digest delivered"');
    expect(text).not.toMatch(/xoxb-demo-/);
  });

  it("leaves no key behind in Redis", async () => {
    expect(await keysUnder(prefix)).toEqual([]);
  });
});

describe("npm run demo without a Redis", () => {
  it("starts a throwaway redis-server when none answers and one is installed", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "insight-relay-demo-test-"));
    try {
      const r = await demo({
        PATH: process.env.PATH ?? "",
        REDIS_URL: `redis://127.0.0.1:${port}`,
        DEMO_OUT_DIR: dir,
      });
      expect(r.out).toMatch(
        /no Redis answered at redis:\/\/127\.0\.0\.1:\d+: using a throwaway redis-server at/,
      );
      expect(r.out).toContain("Demo finished in");
      expect(r.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("explains in one line when there is none and redis-server is not installed", async () => {
    const port = await freePort();
    // A PATH with node only: no redis-server on it.
    const bin = mkdtempSync(join(tmpdir(), "insight-relay-demo-bin-"));
    symlinkSync(process.execPath, join(bin, "node"));
    try {
      expect(existsSync(join(bin, "redis-server"))).toBe(false);
      const r = await demo({ PATH: bin, REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(r.code).toBe(1);
      const lines = r.out.split("\n").filter(Boolean);
      expect(lines).toEqual([
        `demo: No Redis answers at redis://127.0.0.1:${port} and redis-server is not installed: start one (docker compose up -d redis, or apt-get install redis-server) or set REDIS_URL, then run npm run demo again.`,
      ]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 30_000);
});
