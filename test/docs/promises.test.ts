import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createMetrics } from "../../src/metrics.js";
import { DIGEST_ACTIONS } from "../../src/slack/action-ids.js";
import { coreSubcommands } from "../../src/slack/commands/feature.js";
import { SHORTCUTS } from "../../src/slack/personal-ids.js";
import { fakeCommandsDeps } from "../helpers/fakes.js";
import { docPages, prose, readPage, ROOT } from "./markdown.js";

/*
 * What the docs promise, held to what the app has: the npm scripts they name, the manifest's
 * scopes, the variables, the metrics, the subcommands and the public ids.
 */

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** The first column of a Markdown table's rows, as the backticked names it holds. */
function firstColumnNames(md: string): string[] {
  return md
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((l) => [...(l.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ""));
}

/** The part of a page from a heading to the next heading of the same level or above. */
function section(md: string, heading: string): string {
  const from = md.indexOf(`${heading}\n`);
  if (from < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  const next = new RegExp(`\\n#{1,${level}} `, "g");
  next.lastIndex = from + heading.length;
  const end = next.exec(md)?.index ?? md.length;
  return md.slice(from, end);
}

describe("the docs' promises", () => {
  it.each(docPages())("%s names only npm scripts that exist", (page) => {
    const named = [...readPage(page).matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => m[1] ?? "");
    expect(named.filter((s) => !(s in pkg.scripts))).toEqual([]);
  });

  it("lists every bot scope of the manifests in the README, and no other", () => {
    const scopesOf = (file: string) =>
      (parse(readFileSync(join(ROOT, file), "utf8")) as { oauth_config: { scopes: { bot: string[] } } })
        .oauth_config.scopes.bot;
    const manifests = new Set([...scopesOf("manifest.yml"), ...scopesOf("manifest.multi-workspace.yml")]);
    const table = firstColumnNames(section(readPage("README.md"), "## Create the Slack app")).filter((n) =>
      /^[a-z_]+:[a-z_.]+$|^commands$/.test(n),
    );
    expect(new Set(table)).toEqual(manifests);
    expect(table).toHaveLength(manifests.size);
  });

  it("documents every variable of .env.example in operating.md's table, and no other", () => {
    const example = Object.keys(parseEnv(readFileSync(join(ROOT, ".env.example"), "utf8")));
    const table = firstColumnNames(section(readPage("docs/operating.md"), "## Configuration"));
    expect(new Set(table)).toEqual(new Set(example));
  });

  it("names every metric the app exports in operating.md", async () => {
    const metrics = await createMetrics().registry.getMetricsAsJSON();
    const page = readPage("docs/operating.md");
    const names = metrics.map((m) => m.name.replace(/^insight_relay_/, ""));
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !page.includes(`\`${n}`))).toEqual([]);
  });

  it("explains every /insight subcommand in using.md's table", () => {
    const table = section(readPage("docs/using.md"), "## Every `/insight` command");
    // The router's own, and every one the manifest's usage hint names (the other features' too).
    const manifest = parse(readFileSync(join(ROOT, "manifest.yml"), "utf8")) as {
      features: { slash_commands: { usage_hint: string }[] };
    };
    const hinted = (manifest.features.slash_commands[0]?.usage_hint ?? "")
      .split(" | ")
      .map((part) => part.split(" ")[0] ?? "");
    const names = [...new Set([...coreSubcommands(fakeCommandsDeps().deps).map((c) => c.name), ...hinted])];
    expect(names).toEqual(expect.arrayContaining(["help", "digest", "alerts", "weekly", "ask", "watch"]));
    expect(names.filter((n) => !new RegExp(`^\\| \`${n}\\b`, "m").test(table))).toEqual([]);
  });

  it("gives the card's public action ids and the shortcuts' callback ids", () => {
    const using = readPage("docs/using.md");
    for (const id of Object.values(DIGEST_ACTIONS)) expect(using, id).toContain(`\`${id}\``);
    const personal = readPage("docs/personal.md");
    for (const id of Object.values(SHORTCUTS)) expect(personal, id).toContain(`\`${id}\``);
  });

  it("tells how to run every benchmark in bench/README.md", () => {
    const howTo = section(readPage("bench/README.md"), "## How to run each benchmark");
    const benches = Object.keys(pkg.scripts).filter((s) => s.startsWith("bench:") || s === "soak");
    expect(benches.length).toBeGreaterThan(5);
    expect(benches.filter((b) => !howTo.includes(`npm run ${b}`))).toEqual([]);
  });

  it("keeps the history of changes out of the pages (it is in git)", () => {
    const passes = docPages().filter((p) =>
      /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth) pass\b/i.test(
        prose(readPage(p)),
      ),
    );
    expect(passes).toEqual([]);
  });
});
