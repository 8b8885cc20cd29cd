import { createRequire } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cruise, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const config = createRequire(import.meta.url)(join(root, ".dependency-cruiser.cjs")) as IConfiguration;

/** The house's rules over a tree of modules (paths relative to `baseDir`), as `npm run check` reports them. */
async function check(baseDir: string): Promise<string> {
  const out = await cruise(
    ["src", "dev"],
    {
      baseDir,
      validate: true,
      ruleSet: { forbidden: config.forbidden ?? [] },
      doNotFollow: { path: "node_modules" },
      tsPreCompilationDeps: true,
      outputType: "err-long",
    },
    { extensions: [".ts", ".js"] },
  );
  return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
}

/** Every .ts file under a folder of src/, with its text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), "utf8") }));
}

describe("the workspace is explicit", () => {
  it("no Proxy and no AsyncLocalStorage carries work's context anywhere in src/", () => {
    const ambient = sources(join(root, "src")).filter(({ text }) =>
      /new Proxy\(|AsyncLocalStorage/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")),
    );
    expect(ambient.map((s) => s.file)).toEqual([]);
  });
});

describe("architecture rules (dependency-cruiser)", () => {
  it("report each violating import by name, one rule each, on a fixture tree", async () => {
    const out = await check(join(root, "test/fixtures/architecture"));
    expect(out).toMatch(/pure-imports-no-io: src\/domain\/reads-disk\.ts → (node:)?fs/);
    expect(out).toMatch(
      /pure-reaches-no-io: src\/slack\/render\/cached-card\.ts → .*node_modules\/ioredis\//,
    );
    expect(out).toContain("src/store/cache.ts");
    expect(out).toMatch(/no-circular: src\/weekly\/p(i|o)ng\.ts →\s+src\/weekly\/p(o|i)ng\.ts/);
    expect(out).toContain("src-not-to-dev-or-test: src/weekly/uses-seed.ts → dev/seed.ts");
    expect(out).toContain("only-the-root-imports-compose: src/weekly/asks-root.ts → src/compose/root.ts");
    expect(out).toContain(
      "slack-not-to-jobs: src/slack/commands/peeks-at-queues.ts → src/jobs/queue-names.ts",
    );
    expect(out).toContain("webhooks-not-to-jobs: src/webhooks/queues-a-job.ts → src/jobs/queue-names.ts");
    expect(out).toContain(
      "intake-not-to-webhooks: src/intake/asks-receiver.ts → src/webhooks/secret-check.ts",
    );
    expect(out).toContain(
      "intake-knows-only-job-contracts: src/intake/asks-queue.ts → src/jobs/queue-registry.ts",
    );
    expect(out).not.toContain("src/intake/job-contract.ts");
    expect(out).toContain(
      "ops-off-the-queue-machinery: src/ops/reads-queues.ts → src/jobs/queue-registry.ts",
    );
    expect(out).toMatch(/no-circular: dev\/ti(c|o)k\.ts →\s+dev\/t(i|o)ck\.ts/);
    expect(out).toMatch(/12 dependency violations \(12 errors/);
  });

  it("hold for the app itself", async () => {
    const out = await check(root);
    expect(out).toContain("no dependency violations found");
  });
});
