// The part of autocannon's API the benches use, loaded at run time (a dev dependency only the
// benches use), typed here once.

/** The part of autocannon's API used here (loaded at run time: a dev dependency only benches use). */
export interface AutocannonResult {
  latency: { p50: number; p99: number; max: number };
  "2xx": number;
  non2xx: number;
  errors: number;
  duration: number;
}
export interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
export type Autocannon = (o: {
  url: string;
  connections: number;
  duration: number;
  requests: { setupRequest: (r: AutocannonRequest) => AutocannonRequest }[];
}) => Promise<AutocannonResult>;

export async function loadAutocannon(): Promise<Autocannon> {
  const name = "autocannon";
  try {
    const mod = (await import(name)) as { default: Autocannon };
    return mod.default;
  } catch {
    throw new Error("autocannon is not installed: npm install (it is a devDependency)");
  }
}
