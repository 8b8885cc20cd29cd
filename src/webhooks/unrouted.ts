import { readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { IngestOutcome } from "./ingest.js";
import { newReceiptId } from "../intake/entry.js";
import { Spool, type SpooledDelivery } from "./spool.js";

/** What the webhook route hands a delivery to: a workspace's ingest, or the unrouted spool. */
export interface WebhookIngest {
  /**
   * Records a delivery. `receipt`: the id of a receipt kept earlier (a copy of it is the same
   * receipt again, not a repeat); a new one when absent.
   */
  ingest(rawBody: string, receivedAt?: Date, receipt?: string): Promise<{ outcome: IngestOutcome }>;
}

export interface UnroutedDeps {
  /** Where the unrouted spools live: one directory per secret hash. */
  dir: string;
  /**
   * The ingest of the workspace whose webhook secret has this SHA-256 (hex), or "unknown" when
   * Redis says no workspace has it. Throws (or rejects) while Redis cannot say.
   */
  resolve(secretHash: string): Promise<WebhookIngest | "unknown">;
  /** Keeps, for operators, a delivery whose secret turned out to be nobody's. */
  deadLetter(d: SpooledDelivery): Promise<unknown>;
  logger: Logger;
  metrics?: Metrics;
  /** Distinct secrets kept at most, and bytes: past them a delivery is refused (the route answers 503). */
  maxSecrets?: number;
  maxBytes?: number;
}

const HASH = /^[0-9a-f]{64}$/;
const MAX_SECRETS = 32;
const MAX_BYTES = 256 * 1024 * 1024;

/**
 * Multi-workspace mode, rule 1: a delivery whose secret cannot be checked because Redis is
 * down is still answered 2xx. It is kept on disk under the SHA-256 of the secret (the secret
 * index in Redis holds the same hash, never the secret), and once Redis answers it is replayed
 * into that workspace's ingest, or dead-lettered when the secret is nobody's. Since a wrong
 * secret cannot be told from a right one meanwhile, what is kept is bounded.
 */
export class UnroutedDeliveries {
  private readonly spools = new Map<string, { spool: Spool; bytes: number }>();
  private bytes = 0;
  private replaying: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: UnroutedDeps) {}

  /** An ingest that keeps deliveries of this secret hash until they can be routed. */
  ingestFor(secretHash: string): WebhookIngest {
    return { ingest: async (raw, at) => this.keep(secretHash, raw, at) };
  }

  /** Appends a delivery durably; throws when over the bounds (nothing kept then). */
  keep(secretHash: string, rawBody: string, receivedAt = new Date()): { outcome: IngestOutcome } {
    if (!HASH.test(secretHash)) throw new Error("not a secret hash");
    const size = Buffer.byteLength(rawBody);
    let entry = this.spools.get(secretHash);
    if (!entry && this.secretsOnDisk().size >= (this.deps.maxSecrets ?? MAX_SECRETS))
      throw new Error("too many unchecked webhook secrets kept while Redis is unavailable");
    if (this.bytes + size > (this.deps.maxBytes ?? MAX_BYTES))
      throw new Error("the unrouted spool is full while Redis is unavailable");
    if (!entry) {
      entry = { spool: new Spool(join(this.deps.dir, secretHash), this.deps.logger), bytes: 0 };
      this.spools.set(secretHash, entry);
    }
    entry.spool.append({ receivedAt: receivedAt.toISOString(), body: rawBody, receipt: newReceiptId() });
    entry.bytes += size;
    this.bytes += size;
    this.replaySoon();
    return { outcome: "spooled" };
  }

  /** Whether anything waits (this process's or a previous one's). */
  pending(): boolean {
    return this.secretsOnDisk().size > 0;
  }

  /** Routes what can be routed now; safe to call any time. */
  replay(): Promise<void> {
    this.replaying ??= this.replayOnce().finally(() => {
      this.replaying = undefined;
    });
    return this.replaying;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const { spool } of this.spools.values()) spool.close();
  }

  private async replayOnce(): Promise<void> {
    for (const hash of this.secretsOnDisk()) {
      let target: WebhookIngest | "unknown";
      try {
        target = await this.deps.resolve(hash);
      } catch {
        return; // Redis cannot say yet: the timer tries again
      }
      const entry = this.spools.get(hash) ?? {
        spool: new Spool(join(this.deps.dir, hash), this.deps.logger),
        bytes: 0,
      };
      this.spools.set(hash, entry);
      const r = await entry.spool.replay(
        target === "unknown"
          ? async (d) => {
              await this.deps.deadLetter(d);
            }
          : async (d) => {
              await target.ingest(d.body, new Date(d.receivedAt), d.receipt);
            },
      );
      if (r.failed || entry.spool.hasSegments()) continue;
      entry.spool.close();
      this.spools.delete(hash);
      this.bytes -= entry.bytes;
      try {
        // Not recursive: another process sharing SPOOL_DIR may have just appended here.
        rmdirSync(entry.spool.dir);
      } catch {
        // not empty after all: the next pass takes it
      }
      if (r.replayed > 0)
        this.deps.logger.info(
          { replayed: r.replayed, routed: target !== "unknown" },
          target === "unknown"
            ? "deliveries kept while Redis was down had a secret of no workspace: dead-lettered"
            : "deliveries kept while Redis was down were routed to their workspace",
        );
    }
  }

  /** While anything is kept, try to route it every second. */
  private replaySoon(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.pending()) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      void this.replay().catch((err: unknown) =>
        this.deps.logger.warn({ err }, "routing unrouted deliveries failed"),
      );
    }, 1_000);
    this.timer.unref();
  }

  /** Secret hashes with deliveries kept (by this process, or by one before it). */
  private secretsOnDisk(): Set<string> {
    const found = new Set(this.spools.keys());
    let names: string[] = [];
    try {
      names = readdirSync(this.deps.dir);
    } catch {
      // nothing kept yet
    }
    for (const name of names) {
      if (!HASH.test(name) || found.has(name)) continue;
      try {
        if (readdirSync(join(this.deps.dir, name)).length > 0) found.add(name);
      } catch {
        // removed meanwhile
      }
    }
    return found;
  }
}
