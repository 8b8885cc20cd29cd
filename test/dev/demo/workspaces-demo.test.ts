import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDemoArgs } from "../../../dev/demo/args.js";
import { defaultKeys } from "../../../dev/emulator/keys.js";
import { readable, sideBySide } from "../../../dev/demo/workspaces-tour.js";
import { testRedisUrl, uniquePrefix } from "../../helpers/redis.js";

const TSX = resolve("node_modules/.bin/tsx");
const DEMO = resolve("dev/demo/main.ts");

function demo(env: Record<string, string>, args: string[]): Promise<{ code: number; out: string }> {
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

describe("npm run demo -- --workspaces 2", () => {
  const outDir = mkdtempSync(join(tmpdir(), "insight-relay-wsdemo-test-"));
  const prefix = uniquePrefix("wsdemo");
  let run: { code: number; out: string };

  beforeAll(async () => {
    run = await demo(
      { PATH: process.env.PATH ?? "", REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix, DEMO_OUT_DIR: outDir },
      ["--workspaces", "2"],
    );
  }, 90_000);
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  /** The output of step `n` (from its header to the next). */
  const step = (n: number) => {
    const from = run.out.indexOf(`[${n}/7]`);
    const to = run.out.indexOf(`[${n + 1}/7]`);
    return run.out.slice(from, to < 0 ? undefined : to);
  };

  it("runs the seven steps with no credentials and exits 0", () => {
    expect(run.out).not.toContain("problem(s)");
    expect(run.out).toContain("Demo finished in");
    expect(run.code).toBe(0);
    for (let n = 1; n <= 7; n++) expect(run.out).toContain(`[${n}/7]`);
  });

  it("installs both workspaces through /slack/install, Slack's authorize page and /slack/oauth_redirect", () => {
    for (const name of ["North Star Hosting", "South Bay Analytics"]) {
      expect(step(2)).toContain(`Slack's authorize page: install in ${name}, Allow`);
      expect(step(2)).toContain(`GET /slack/oauth_redirect: "Insight Relay is installed in ${name}"`);
    }
  });

  it("connects each from its Home tab and gives each its own webhook URL, never shown whole", () => {
    const urls = [...step(3).matchAll(/webhook URL (\S+\/webhooks\/insight\/)(\S+)/g)].map((m) => m[2]);
    expect(urls).toHaveLength(2);
    expect(urls[0]).not.toBe(urls[1]);
    // Six characters of the secret and an ellipsis: the 43-character secret is not printed.
    for (const u of urls) expect(u).toMatch(/^[A-Za-z0-9_-]{6}…$/);
    expect(step(3)).toContain("T0NORTH admin > opens the app's Home tab");
    expect(step(3)).toContain("T0SOUTH admin > opens the app's Home tab");
  });

  it("subscribes a channel in each to the same group; one delivery per URL, one card in each channel", () => {
    expect(step(4)).toContain("subscribed this channel to *Lumen DB Support*");
    expect(step(5).match(/new message in #north-db-community:\n\s+Backups fail/g)).toHaveLength(1);
    expect(step(5).match(/new message in #south-lumen-watch:\n\s+Backups fail/g)).toHaveLength(1);
    expect(step(5)).toContain("2 deliveries (one per webhook URL), 2 acknowledged with 2xx");
  });

  it("marks the card handled in one workspace only, and shows both channels side by side", () => {
    expect(step(6)).toContain("message edited in #north-db-community:");
    expect(step(6)).not.toContain("#south-lumen-watch");
    const table = step(7).split("\n");
    const row = (text: string) => table.find((l) => l.includes(text)) ?? "";
    expect(row("North Star Hosting #north-db-community")).toContain(
      "| South Bay Analytics #south-lumen-watch",
    );
    const [left, right] = row("Handled by").split(" | ");
    expect(left).toContain("Handled by @U0NORTHADMIN");
    expect(right).not.toContain("Handled");
    expect(row("[Reopen]").split(" | ")[1] ?? "").not.toContain("Reopen");
    expect(row("(edited 1x)").split(" | ")[1]).toMatch(/^• Backups fail after enabling compression\s*$/);
    expect(step(7)).toContain(
      "North Star Hosting: 3 Slack calls into #north-db-community, all with its own token",
    );
    expect(step(7)).toContain(
      "South Bay Analytics: 2 Slack calls into #south-lumen-watch, all with its own token",
    );
    expect(step(7)).toContain("South Bay Analytics's /insight list shows only its own subscription");
  });

  it("keeps the tokens and the API key out of the output and the app's log", () => {
    const log = readFileSync(join(outDir, "app.log"), "utf8");
    expect(log).toContain('"msg":"workspace installed the app"');
    for (const text of [run.out, log]) {
      expect(text).not.toMatch(/xoxb-T0/);
      // The emulator's key (seed 42, as the demo starts it), pasted into both Connect modals.
      expect(text).not.toContain(defaultKeys(42).apiKey);
    }
  });

  it("leaves no key behind in Redis", async () => {
    const r = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      expect(await r.keys(`${prefix}:*`)).toEqual([]);
    } finally {
      r.disconnect();
    }
  });
});

describe("the demo's pure parts", () => {
  it("reads --keep and --workspaces, and refuses anything else", () => {
    expect(parseDemoArgs([])).toEqual({ keep: false, workspaces: 1 });
    expect(parseDemoArgs(["--workspaces", "2", "--keep"])).toEqual({ keep: true, workspaces: 2 });
    expect(parseDemoArgs(["--workspaces=1"])).toEqual({ keep: false, workspaces: 1 });
    expect(parseDemoArgs(["--workspaces", "3"])).toEqual({ error: "--workspaces is 1 or 2, not 3" });
    expect(parseDemoArgs(["--workspaces"])).toEqual({ error: "--workspaces is 1 or 2, not nothing" });
    expect(parseDemoArgs(["--fast"])).toEqual({ error: "unknown argument --fast" });
  });

  it("lays two columns side by side, each clipped to its width", () => {
    expect(sideBySide(["a", "bbbbbbbbbbbb"], ["c"], 5)).toEqual(["  a     | c", "  bbbb… |"]);
  });

  it("shows mrkdwn as Slack shows it", () => {
    expect(
      readable(
        "Handled by <@U0A> <!date^1795491576^{date_short_pretty}|2026-11-24 03:39 UTC> &lt;b&gt; &amp;",
      ),
    ).toBe("Handled by @U0A 2026-11-24 03:39 UTC <b> &");
  });
});
