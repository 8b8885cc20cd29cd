// Top frames of a V8 CPU profile (node --cpu-prof): busy time by package (each sample goes to
// the nearest frame on its stack that belongs to a package or to the app), the top frames by
// self time, and the app's own functions by total time.
//
//   tsx bench/top-frames.ts FILE.cpuprofile [N] [--skip-ms MS]
//
// `--skip-ms` leaves out the first MS of the profile (start-up: module loading), `--until-ms`
// what comes after MS. A bundled app's frames are mapped to their sources by the bundle's source
// map (beside it), so the packages bundled into it (zod, Bolt) count as themselves. Last, the
// share of busy time with a frame of BullMQ, ioredis, zod, the listing parse, JSON, the Slack
// client, Express/Bolt, pino or undici on the stack (a sample can count for several).
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { "skip-ms": { type: "string", default: "0" }, "until-ms": { type: "string" } },
});
const [file, n = "25"] = positionals;
if (!file) {
  console.error("usage: top-frames.ts FILE.cpuprofile [N] [--skip-ms MS]");
  process.exit(2);
}
const skipUs = Number(values["skip-ms"]) * 1000;
const untilUs = values["until-ms"] === undefined ? Infinity : Number(values["until-ms"]) * 1000;
const p = JSON.parse(readFileSync(file, "utf8")) as Profile;

// Bundled frames: their source by the bundle's source map (`FILE.js.map`), when there is one.
const maps = new Map<string, SourceMap | undefined>();
const mapOf = (url: string): SourceMap | undefined => {
  if (!maps.has(url)) {
    const path = url.startsWith("file://") ? fileURLToPath(url) : url;
    const map = `${path}.map`;
    maps.set(
      url,
      path.endsWith(".js") && existsSync(map)
        ? new SourceMap(JSON.parse(readFileSync(map, "utf8")) as ConstructorParameters<typeof SourceMap>[0])
        : undefined,
    );
  }
  return maps.get(url);
};
for (const x of p.nodes) {
  const f = x.callFrame;
  // findEntry answers {} where the map has nothing.
  const entry: { originalSource?: string; originalLine?: number } | undefined = f.url
    ? mapOf(f.url)?.findEntry(f.lineNumber, f.columnNumber ?? 0)
    : undefined;
  if (entry?.originalSource) {
    // Sources are relative to the map (`../../zod/...` from node_modules/.cache/DIR/): made whole.
    const url = new URL(entry.originalSource, f.url.startsWith("file://") ? f.url : `file://${f.url}`).href;
    x.callFrame = { ...f, url, lineNumber: entry.originalLine ?? f.lineNumber };
  }
}
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map<number, number>();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const self = new Map<number, number>();
let clock = 0;
p.samples.forEach((id, i) => {
  const dt = p.timeDeltas[i] ?? 0;
  clock += dt;
  if (clock >= skipUs && clock <= untilUs) self.set(id, (self.get(id) ?? 0) + dt);
});
const IDLE = /^\((idle|program|garbage collector)\)$/;
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()]
  .filter(([id]) => IDLE.test(byId.get(id)?.callFrame.functionName ?? ""))
  .map(([id, t]) => [byId.get(id)?.callFrame.functionName, t] as const);
const idleTotal = [...self.entries()]
  .filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)")
  .reduce((a, [, t]) => a + t, 0);
const busy = total - idleTotal;

/**
 * The app's own code: this repository's src/ (tsx) or dist/ (compiled), or the bundle the
 * benches build (processes.ts's appScript, under node_modules/.cache), not a package's.
 */
const BENCH_BUNDLE = /node_modules\/\.cache\/insight-relay-bench-/;
const isApp = (url: string) =>
  BENCH_BUNDLE.test(url) || (!url.includes("node_modules") && /\/(src|dist)\//.test(url));
const packageOf = (url: string): string | undefined => {
  if (BENCH_BUNDLE.test(url)) return "(the app)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) return m[1];
  if (isApp(url)) return "(the app)";
  if (url.startsWith("node:")) return "(node internals)";
  return undefined;
};

const label = (x: Node) => {
  const url = x.callFrame.url
    .replace(/^file:\/\//, "")
    .replace(/.*node_modules\/\.cache\/insight-relay-bench-[^/]+\//, "bundle:")
    .replace(/.*node_modules\//, "");
  const short = url.replace(/^.*\/(src|dist|dev|bench|test)\//, "$1/");
  return `${x.callFrame.functionName || "(anonymous)"} ${short}:${x.callFrame.lineNumber + 1}`;
};
const selfBy = new Map<string, number>();
const packageBy = new Map<string, number>();
for (const [id, t] of self) {
  const x = byId.get(id);
  if (!x) continue;
  selfBy.set(label(x), (selfBy.get(label(x)) ?? 0) + t);
  if (x.callFrame.functionName === "(idle)") continue;
  // Native frames (no url) count for the code that called them.
  let pkg: string | undefined;
  for (let cur: number | undefined = id; cur !== undefined && !pkg; cur = parent.get(cur)) {
    pkg = packageOf(byId.get(cur)?.callFrame.url ?? "");
  }
  const name =
    pkg ?? (IDLE.test(x.callFrame.functionName) ? x.callFrame.functionName : "(native, no caller)");
  packageBy.set(name, (packageBy.get(name) ?? 0) + t);
}
// Total time per function: each sample counts once for every distinct frame on its stack.
const totalBy = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const x = byId.get(cur);
    if (!x) break;
    const l = label(x);
    if (!seen.has(l) && isApp(x.callFrame.url)) totalBy.set(l, (totalBy.get(l) ?? 0) + t);
    seen.add(l);
  }
}
const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
const pct = (t: number, of: number) => `${((100 * t) / of).toFixed(1).padStart(5)}%`;
console.log(
  `profile ${file}: ${ms(total)} sampled${skipUs ? ` after the first ${ms(skipUs)}` : ""}; busy ${ms(busy)}; ${idle
    .map(([f, t]) => `${f} ${ms(t)}`)
    .join(", ")}`,
);
console.log(`\nbusy time by package (share of busy time)`);
for (const [l, t] of [...packageBy].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${pct(t, busy)}  ${ms(t).padStart(8)}  ${l}`);
}
console.log(`\ntop ${n} by self time (share of busy time)`);
for (const [l, t] of [...selfBy]
  .filter(([l]) => !l.startsWith("(idle)"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(n))) {
  console.log(`${pct(t, busy)}  ${ms(t).padStart(8)}  ${l}`);
}
console.log(`\ntop ${n} of the app's own functions by total time (share of busy time)`);
for (const [l, t] of [...totalBy].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${pct(t, busy)}  ${ms(t).padStart(8)}  ${l}`);
}

/** The parts of the stack issue 38 asks about: a sample counts for each whose frame is on its stack. */
const GROUPS: [string, (f: Node["callFrame"]) => boolean][] = [
  ["BullMQ", (f) => /node_modules\/bullmq\//.test(f.url)],
  [
    "ioredis",
    (f) => /node_modules\/(ioredis|@ioredis\/[^/]+|redis-parser|standard-as-callback)\//.test(f.url),
  ],
  ["zod", (f) => /node_modules\/zod\//.test(f.url)],
  [
    "the listing parse (thread-lookup, the listing's schemas)",
    (f) =>
      /src\/(jobs\/thread-lookup|insight\/schemas|insight\/paginate)\.ts/.test(f.url) ||
      /parsePage/.test(f.functionName),
  ],
  [
    "JSON (parse, stringify)",
    (f) => (!f.url && /^(parse|stringify)$/.test(f.functionName)) || /safe-stable-stringify/.test(f.url),
  ],
  [
    "@slack/web-api, axios",
    (f) => /node_modules\/(@slack\/web-api|axios|form-data|follow-redirects)\//.test(f.url),
  ],
  [
    "express, Bolt",
    (f) =>
      /node_modules\/(express|router|body-parser|raw-body|finalhandler|path-to-regexp|@slack\/bolt)\//.test(
        f.url,
      ),
  ],
  [
    "pino",
    (f) => /node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers|fast-redact)\//.test(f.url),
  ],
  ["undici", (f) => /node_modules\/undici\//.test(f.url)],
  ["the app's own code", (f) => isApp(f.url)],
];
const groupBy = new Map<string, number>();
for (const [id, t] of self) {
  if (byId.get(id)?.callFrame.functionName === "(idle)") continue;
  const hit = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)?.callFrame;
    if (f) for (const [name, test] of GROUPS) if (test(f)) hit.add(name);
  }
  for (const name of hit) groupBy.set(name, (groupBy.get(name) ?? 0) + t);
}
console.log(`\nshare of busy time with a frame of it on the stack (a sample can count for several)`);
for (const [name] of GROUPS)
  console.log(`${pct(groupBy.get(name) ?? 0, busy)}  ${ms(groupBy.get(name) ?? 0).padStart(8)}  ${name}`);
