import type { Grant } from "./types.js";

export type KeyKind = "full" | "limited" | "other";

/** API keys and the communities each may read. Lookup only: keys are never logged or echoed. */
export class KeyRing {
  private readonly keys = new Map<string, { kind: KeyKind; grant: Grant }>();

  grant(key: string, grant: "all" | Iterable<string>, kind: KeyKind = "other"): void {
    this.keys.set(key, { kind, grant: grant === "all" ? "all" : new Set(grant) });
  }

  revoke(key: string): void {
    this.keys.delete(key);
  }

  lookup(key: string | undefined): { kind: KeyKind; grant: Grant } | undefined {
    return key === undefined ? undefined : this.keys.get(key);
  }
}

export const mayRead = (grant: Grant, communityId: string): boolean =>
  grant === "all" || grant.has(communityId);

/** Deterministic, obviously-fake keys derived from the seed, so the demo can print them. */
export function defaultKeys(seed: number): { apiKey: string; limitedKey: string } {
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
  const mix = (x: number) => Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  const a = mix(seed + 0x9e3779b9);
  const b = mix(a + seed);
  return {
    apiKey: `emu_full_${hex(a)}${hex(b)}`,
    limitedKey: `emu_limited_${hex(mix(b))}${hex(mix(a ^ b))}`,
  };
}
