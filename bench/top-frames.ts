// Top frames of a V8 CPU profile (node --cpu-prof) by self time, and by total time for the
// app's own files: `tsx bench/top-frames.ts FILE.cpuprofile [N]`.
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, n = "25"] = process.argv.slice(2);
if (!file) {
  console.error("usage: top-frames.ts FILE.cpuprofile [N]");
  process.exit(2);
}
const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map<number, number>();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()]
  .filter(([id]) => /^\((idle|program|garbage collector)\)$/.test(byId.get(id)?.callFrame.functionName ?? ""))
  .map(([id, t]) => [byId.get(id)?.callFrame.functionName, t] as const);

const label = (x: Node) => {
  const url = x.callFrame.url.replace(/^file:\/\//, "").replace(/.*node_modules\//, "");
  const short = url.replace(/^.*\/(src|dev|bench|test)\//, "$1/");
  return `${x.callFrame.functionName || "(anonymous)"} ${short}:${x.callFrame.lineNumber + 1}`;
};
const selfBy = new Map<string, number>();
for (const [id, t] of self) {
  const x = byId.get(id);
  if (x) selfBy.set(label(x), (selfBy.get(label(x)) ?? 0) + t);
}
// Total time per function: each sample counts once for every distinct frame on its stack.
const totalBy = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const x = byId.get(cur);
    if (!x) break;
    const l = label(x);
    if (!seen.has(l)) totalBy.set(l, (totalBy.get(l) ?? 0) + t);
    seen.add(l);
  }
}
const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
console.log(`profile ${file}: ${ms(total)} sampled; ${idle.map(([f, t]) => `${f} ${ms(t)}`).join(", ")}`);
console.log(`\ntop ${n} by self time`);
for (const [l, t] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${ms(t).padStart(8)}  ${l}`);
}
console.log(`\ntop ${n} of the app's own functions (src/) by total time`);
for (const [l, t] of [...totalBy]
  .filter(([l]) => / src\//.test(l))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(n))) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${ms(t).padStart(8)}  ${l}`);
}
