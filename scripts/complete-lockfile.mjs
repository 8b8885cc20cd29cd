#!/usr/bin/env node
// Completes package-lock.json with the optional platform packages (darwin, win32, musl, ...)
// that `npm install` leaves out when the registry it talks to does not serve them. Without
// those entries `npm ci` refuses the lock ("Missing: ... from lock file"). The entries carry
// os/cpu/libc, so npm skips them on every other platform and never downloads them.
//
//   node scripts/complete-lockfile.mjs          (run after any `npm install`)
//   node scripts/complete-lockfile.mjs --check  (exit 1 if entries are missing; part of `npm run check`)
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "freebsd", "linux", "win32", "openbsd", "sunos", "aix"];
const CPU = ["arm64", "x64", "arm", "ia32", "riscv64", "ppc64", "s390x", "loong64"];

/** os/cpu/libc from a platform package's name, e.g. canvas-linux-x64-musl. */
function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p)) ?? (parts.includes("arm") ? "arm" : undefined);
  if (!os || !cpu) return undefined;
  const libc = parts.includes("musl")
    ? "musl"
    : os === "linux" && parts.includes("gnu")
      ? "glibc"
      : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [key, pkg] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    // Resolution as npm does it: nearest node_modules up the tree.
    const base = key ? `${key}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      console.error(
        `complete-lockfile: ${dep} (optional of ${key || "root"}) is missing and is not a platform package`,
      );
      process.exitCode = 1;
      continue;
    }
    const version = String(range).replace(/^[\^~=]/, "");
    packages[`node_modules/${dep}`] = { version, ...platform, optional: true };
    added++;
  }
}
if (process.argv.includes("--check")) {
  if (added > 0) {
    console.error(
      `complete-lockfile: package-lock.json lacks ${added} optional platform entries; \`npm ci\` would refuse it. Run: node scripts/complete-lockfile.mjs`,
    );
    process.exitCode = 1;
  }
} else {
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`complete-lockfile: added ${added} platform entr${added === 1 ? "y" : "ies"}`);
}
