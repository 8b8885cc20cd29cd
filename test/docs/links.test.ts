import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, docPages, linksOf, readPage, ROOT } from "./markdown.js";

/*
 * Every relative link of the docs resolves: the file exists, and a `#anchor` names a heading of
 * the page it points at (as GitHub makes anchors). Web links are left to the reader.
 */

/**
 * Pages another branch of the same issue is writing (issue 34: what the app does under each
 * Redis fault); linked already, so that nobody has to remember to. Take a page out of this list
 * once it is on main.
 */
const BEING_WRITTEN = new Set<string>([]);

const isWebLink = (t: string) => /^[a-z][a-z0-9+.-]*:/i.test(t);

function broken(page: string): string[] {
  const out: string[] = [];
  for (const target of linksOf(readPage(page))) {
    if (isWebLink(target)) continue;
    const [path = "", anchor] = target.split("#");
    const file = path === "" ? page : normalize(join(dirname(page), path));
    if (BEING_WRITTEN.has(file) && !existsSync(join(ROOT, file))) continue;
    if (!existsSync(join(ROOT, file))) {
      out.push(`${page}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!file.endsWith(".md") || statSync(join(ROOT, file)).isDirectory()) {
      out.push(`${page}: ${target} (an anchor into a file that is not a page)`);
      continue;
    }
    if (!anchorsOf(readPage(file)).has(anchor)) out.push(`${page}: ${target} (no such heading)`);
  }
  return out;
}

describe("the docs' links", () => {
  it("reads the pages a reader is sent to", () => {
    expect(docPages()).toEqual(
      expect.arrayContaining([
        "README.md",
        "bench/README.md",
        "docs/architecture.md",
        "docs/ask.md",
        "docs/operating.md",
        "docs/performance.md",
        "docs/personal.md",
        "docs/scaling.md",
        "docs/using.md",
      ]),
    );
  });

  it.each(docPages())("%s: every relative link and anchor resolves", (page) => {
    expect(broken(page)).toEqual([]);
  });

  it("makes anchors as GitHub does", () => {
    const md = "# Using it\n## `/insight` subcommands\n## Digest mode, and alerts\n## FAQ\n## FAQ\n";
    expect([...anchorsOf(md)]).toEqual([
      "using-it",
      "insight-subcommands",
      "digest-mode-and-alerts",
      "faq",
      "faq-1",
    ]);
  });

  it("reads links and images, not what is in code", () => {
    expect(linksOf("See [a](docs/none.md#x), ![p](images/a.png) and `[not](a link)`.")).toEqual([
      "docs/none.md#x",
      "images/a.png",
    ]);
  });
});
