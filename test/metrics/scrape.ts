import { request } from "undici";

/** One sample of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text exposition format (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m?.[1] || m[3] === undefined) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) if (l[1]) labels[l[1]] = l[2] ?? "";
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

export async function scrape(baseUrl: string): Promise<{ contentType: string; samples: Sample[] }> {
  const res = await request(`${baseUrl}/metrics`);
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}`);
  return { contentType: String(res.headers["content-type"]), samples: parseMetrics(text) };
}

/** The value of the one sample with this name whose labels include `labels` (undefined when none). */
export function value(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length === 0) return undefined;
  return found.reduce((sum, s) => sum + s.value, 0);
}
