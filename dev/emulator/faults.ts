/*
 * Fault injection for the emulated REST API: rate limits, server errors, latency, a dead or a
 * hanging server. Counted faults are used up one matching request at a time.
 */

export interface FaultSpec {
  /** The next `count` matching requests get 429 with `Retry-After: retryAfterSeconds` (default 1). */
  rateLimit?: { count: number; retryAfterSeconds?: number };
  /** The next `count` matching requests get `status` (default 500). */
  serverError?: { count: number; status?: number };
  /** Every matching response is delayed this long. */
  latencyMs?: number;
  /** Matching requests have their socket destroyed without an answer. */
  down?: boolean;
  /** Matching requests are never answered (until the emulator closes). */
  hang?: boolean;
  /** Only requests whose path matches are affected (default: every API request). */
  path?: RegExp;
}

export type FaultAction =
  | { kind: "none" }
  | { kind: "down" }
  | { kind: "hang" }
  | { kind: "rateLimit"; retryAfterSeconds: number }
  | { kind: "serverError"; status: number };

export interface FaultDecision {
  latencyMs: number;
  action: FaultAction;
}

const NONE: FaultDecision = { latencyMs: 0, action: { kind: "none" } };

export class FaultInjector {
  private spec: FaultSpec = {};

  /** Replaces the active faults with `f` (`set({})` clears them). */
  set(f: FaultSpec): void {
    this.spec = {
      ...f,
      rateLimit: f.rateLimit ? { ...f.rateLimit } : undefined,
      serverError: f.serverError ? { ...f.serverError } : undefined,
    };
  }

  clear(): void {
    this.spec = {};
  }

  /** What is still active (counts as they are now); for the control endpoint and tests. */
  active(): FaultSpec {
    const s = this.spec;
    const out: FaultSpec = {};
    if (s.rateLimit && s.rateLimit.count > 0) out.rateLimit = { ...s.rateLimit };
    if (s.serverError && s.serverError.count > 0) out.serverError = { ...s.serverError };
    if (s.latencyMs) out.latencyMs = s.latencyMs;
    if (s.down) out.down = true;
    if (s.hang) out.hang = true;
    if (s.path) out.path = s.path;
    return out;
  }

  /**
   * The fault for one request, using up one count. Precedence: down, hang, rateLimit,
   * serverError; latency applies on top of any of them.
   */
  decide(path: string): FaultDecision {
    const s = this.spec;
    if (s.path && !s.path.test(path)) return NONE;
    const latencyMs = Math.max(0, s.latencyMs ?? 0);
    if (s.down) return { latencyMs, action: { kind: "down" } };
    if (s.hang) return { latencyMs, action: { kind: "hang" } };
    if (s.rateLimit && s.rateLimit.count > 0) {
      s.rateLimit.count--;
      return {
        latencyMs,
        action: { kind: "rateLimit", retryAfterSeconds: s.rateLimit.retryAfterSeconds ?? 1 },
      };
    }
    if (s.serverError && s.serverError.count > 0) {
      s.serverError.count--;
      return { latencyMs, action: { kind: "serverError", status: s.serverError.status ?? 500 } };
    }
    return { latencyMs, action: { kind: "none" } };
  }
}
