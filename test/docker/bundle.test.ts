import { execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as undici from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { bundle } from "../../scripts/build.js";
import {
  digestsOf,
  messageText,
  spawnAppProcess,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../helpers/app-harness.js";
import { freePort } from "../helpers/global-redis.js";
import { follow, waitUntil } from "../reconcile/support.js";

// The bundle takes three packages from scripts/bundle/ (scripts/build.ts, SUBSTITUTES): the
// suite runs the app under the TypeScript loader with the real ones, so these tests hold the
// substitutes to what the app needs of them, and run the bundled app end to end.

/** The app's calls, through `request` and `Pool` of the module named by argv[1], to argv[2]. */
const ASK = `
const { request, Pool } = await import(process.argv[1]);
const base = process.argv[2];
const out = [];
for (const [url, opts] of [
  [base + "/api/v1/groups?limit=2", { method: "GET" }],
  [new URL("chat.postMessage", base + "/api/"), { method: "POST", body: '{"text":"hi"}', signal: AbortSignal.timeout(5000) }],
  [base + "/upload", { body: Buffer.from("bytes") }],
]) {
  const res = await request(url, opts);
  out.push(res.statusCode + " " + res.headers["x-echo"] + " " + (await res.body.text()));
}
const pool = new Pool(base, { connections: 2 });
const res = await pool.request({ path: "/api/v1/threads?group=g1", method: "GET" });
out.push(res.statusCode + " " + (await res.body.text()));
await pool.close();
console.log(JSON.stringify(out));
`;

function run(cmd: string, args: string[]) {
  return new Promise<{ code: number; out: string }>((done) => {
    execFile(cmd, args, { encoding: "utf8", timeout: 30_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
}

describe("the bundle's substitutes", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // Answers with what it was asked: method, path with query, body.
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => res.writeHead(201, { "x-echo": "1" }).end(`${req.method} ${req.url} ${body}`));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("undici: request and Pool answer as undici's own do, for the calls the app makes", async () => {
    // Each in a process of its own: undici's index, once loaded, would wire the stand-in's
    // dispatchers too, and hide a stand-in that does not.
    const ask = async (specifier: string) => {
      const r = await run(process.execPath, ["--input-type=module", "-e", ASK, specifier, base]);
      expect(r.code, r.out).toBe(0);
      return JSON.parse(r.out) as string[];
    };
    const own = await ask("undici");
    expect(own).toEqual([
      "201 1 GET /api/v1/groups?limit=2 ",
      '201 1 POST /api/chat.postMessage {"text":"hi"}',
      "201 1 PUT /upload bytes",
      "201 GET /api/v1/threads?group=g1 ",
    ]);
    expect(await ask(pathToFileURL(resolve("scripts/bundle/undici.mjs")).href)).toEqual(own);
  });

  it("@slack/socket-mode: making a client fails, saying why", async () => {
    const sub = (await import(pathToFileURL(resolve("scripts/bundle/no-socket-mode.mjs")).href)) as {
      SocketModeClient: new () => object;
    };
    expect(() => new sub.SocketModeClient()).toThrow(
      "Socket Mode is not part of Insight Relay: Slack's requests come over HTTP",
    );
  });
});

describe("the bundled app at work", () => {
  const OUT = resolve("node_modules/.cache", `insight-relay-bundle-test-${process.pid}`);
  const spool = mkdtempSync(join(tmpdir(), "insight-relay-bundle-spool-"));
  let h: Harness;
  let child: ChildProcess | undefined;
  let port: number;

  beforeAll(async () => {
    // Web here (Slack and the webhooks); workers and scheduler, and a second web, in the bundle.
    [h] = await Promise.all([
      startHarness({ env: { ROLE: "web" } }),
      bundle({ entryPoints: ["test/helpers/app-process.ts"], outdir: OUT }),
    ]);
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    port = await freePort();
    child = await spawnAppProcess(
      h,
      "all",
      { PORT: String(port), SPOOL_DIR: spool },
      { script: join(OUT, "app-process.js") },
    );
  }, 60_000);
  afterAll(async () => {
    child?.kill("SIGKILL");
    await h?.stop();
    rmSync(OUT, { recursive: true, force: true });
    rmSync(spool, { recursive: true, force: true });
  });

  it("posts the card of a new thread and edits it when the thread is re-enriched (BullMQ, undici, Bolt)", async () => {
    const { thread } = await h.emulator.createThread(SEED.groups.support, {
      title: "Bundled relay check",
      summary: "First summary from the bundle test.",
      sentiment: "positive",
    });
    expect(await waitUntil(async () => digestsOf(h, thread.id).length === 1, 15_000)).toBe(true);
    expect(messageText(digestsOf(h, thread.id)[0] ?? { text: "" })).toContain(
      "First summary from the bundle test.",
    );

    await h.emulator.enrichThread(SEED.groups.support, thread.id, {
      summary: "Second summary, edited in place.",
    });
    expect(
      await waitUntil(
        async () => messageText(digestsOf(h, thread.id)[0] ?? { text: "" }).includes("Second summary"),
        15_000,
      ),
    ).toBe(true);
    expect(digestsOf(h, thread.id)).toHaveLength(1);
    expect(digestsOf(h, thread.id)[0]?.updates).toBe(1);

    // Its own web role (Bolt's ExpressReceiver, bundled) answers too.
    const ready = await undici.request(`http://127.0.0.1:${port}/readyz`);
    expect(ready.statusCode).toBe(200);
    await ready.body.dump();

    // Its workers ran on its second thread; its /metrics has their jobs beside the web thread's figures.
    const scrape = await undici.request(`http://127.0.0.1:${port}/metrics`);
    const text = await scrape.body.text();
    const completed = /^insight_relay_jobs_total\{queue="deliveries",outcome="completed"\} (\d+)$/m.exec(
      text,
    );
    expect(Number(completed?.[1] ?? 0)).toBeGreaterThanOrEqual(1);
    expect(text.match(/^insight_relay_process_cpu_user_seconds_total /gm)).toHaveLength(1);
  }, 60_000);
});
