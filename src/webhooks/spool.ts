import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../log.js";

export interface SpooledDelivery {
  receivedAt: string;
  /** The body exactly as received (utf8). */
  body: string;
  /** This receipt's id (webhooks/intake-entry.ts); absent in segments written before it. */
  receipt?: string;
}

const SEGMENT = /^spool-(\d+)-(\d+)\.jsonl$/;

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Deliveries kept on local disk while Redis is unreachable (rule 1). Each append is written
 * and fsync'ed before the webhook is answered. Segments are per process; replay claims closed
 * segments (this process's, or those of processes that are gone) by renaming them, so two
 * processes sharing SPOOL_DIR never replay the same file.
 */
export class Spool {
  private fd: number | undefined;
  private segment: string | undefined;
  private pendingCount = 0;
  /** Line counts of segments already read by sizeOnDisk, keyed by name (with size and mtime). */
  private readonly lineCounts = new Map<string, { size: number; mtimeMs: number; lines: number }>();
  /** Appends ever made, so a replay can tell whether more arrived while it ran. */
  private appendedTotal = 0;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Appends one delivery durably. Synchronous on purpose: the answer waits for the disk. */
  append(d: SpooledDelivery): void {
    if (this.fd === undefined) {
      mkdirSync(this.dir, { recursive: true });
      this.segment = join(this.dir, `spool-${process.pid}-${Date.now()}.jsonl`);
      this.fd = openSync(this.segment, "a");
    }
    writeSync(this.fd, `${JSON.stringify(d)}\n`);
    fsyncSync(this.fd);
    this.pendingCount++;
    this.appendedTotal++;
  }

  /** Deliveries appended since the last successful replay, by this process. */
  get pending(): number {
    return this.pendingCount;
  }

  /** Deliveries waiting on disk, across every segment in the directory. */
  async sizeOnDisk(): Promise<number> {
    let n = 0;
    for (const f of this.files()) {
      try {
        const path = join(this.dir, f);
        const { size, mtimeMs } = await stat(path);
        const known = this.lineCounts.get(f);
        if (known && known.size === size && known.mtimeMs === mtimeMs) {
          n += known.lines;
          continue;
        }
        // Newlines counted on the bytes, read without blocking: a long outage's spool can be large.
        const buf = await readFile(path);
        let lines = 0;
        for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
        this.lineCounts.set(f, { size, mtimeMs, lines });
        n += lines;
      } catch {
        // A segment claimed by another process meanwhile.
      }
    }
    return n;
  }

  /** Whether any segment waits in the directory (this process's or another's). */
  hasSegments(): boolean {
    return this.files().length > 0;
  }

  /**
   * Replays every claimable segment through `record` (which must be idempotent). A segment is
   * deleted only when all its deliveries were recorded; otherwise it is put back for later.
   */
  async replay(
    record: (d: SpooledDelivery) => Promise<void>,
  ): Promise<{ replayed: number; failed: boolean }> {
    let replayed = 0;
    // Deliveries that arrive while this runs are spooled too (to keep order) into a new
    // segment: go round again until a pass saw no append, or they would be left behind.
    let appendedBefore: number;
    do {
      appendedBefore = this.appendedTotal;
      this.closeSegment();
      this.reclaimOrphans();
      for (const f of this.files()) {
        const m = SEGMENT.exec(f);
        if (!m) continue;
        if (Number(m[1]) !== process.pid && processAlive(Number(m[1]))) continue;
        const path = join(this.dir, f);
        const claimed = `${path}.replaying-${process.pid}`;
        try {
          renameSync(path, claimed);
        } catch {
          continue; // claimed by another process
        }
        const lines = readFileSync(claimed, "utf8").split("\n").filter(Boolean);
        let done = 0;
        try {
          for (const line of lines) {
            let d: SpooledDelivery;
            try {
              d = JSON.parse(line) as SpooledDelivery;
            } catch {
              // A torn last line from a crash mid-write: the sender never got its 2xx.
              done++;
              continue;
            }
            await record(d);
            done++;
            replayed++;
          }
          unlinkSync(claimed);
        } catch (err) {
          // Keep what is left for the next replay; what was recorded is deduplicated then.
          renameSync(claimed, path);
          this.logger.warn(
            { segment: f, replayed: done, left: lines.length - done, err },
            "spool replay interrupted",
          );
          return { replayed, failed: true };
        }
      }
    } while (this.appendedTotal !== appendedBefore);
    this.pendingCount = 0;
    if (replayed > 0) this.logger.info({ replayed }, "spooled deliveries replayed into the queue");
    return { replayed, failed: false };
  }

  close(): void {
    this.closeSegment();
  }

  /** Segments a replaying process claimed and then died with are put back. */
  private reclaimOrphans(): void {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const f of names) {
      const m = /^(spool-\d+-\d+\.jsonl)\.replaying-(\d+)$/.exec(f);
      if (!m?.[1] || processAlive(Number(m[2]))) continue;
      try {
        renameSync(join(this.dir, f), join(this.dir, m[1]));
      } catch {
        // Another process reclaimed it first.
      }
    }
  }

  private closeSegment(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
      this.segment = undefined;
    }
  }

  /** Segments, oldest first by the creation time in their names (no stat: names may vanish). */
  private files(): string[] {
    const created = (f: string) => Number(SEGMENT.exec(f)?.[2] ?? 0);
    try {
      return readdirSync(this.dir)
        .filter((f) => SEGMENT.test(f))
        .sort((a, b) => created(a) - created(b));
    } catch {
      return [];
    }
  }
}
