import type { RedisClient as Redis } from "../store/redis.js";
import { withTimeout } from "../store/redis.js";
import { formatIntakeEntry } from "./entry.js";

/** Deliveries appended together at most: one batch is one RPUSH. */
const MAX_BATCH = 100;

/**
 * Where a receiver's deliveries go: the intake list the pump moves into the deliveries queue
 * (one for the deployment), and the workspace they belong to in multi-workspace mode.
 */
export interface IntakeTarget {
  key: string;
  workspaceId?: string;
}

interface Pending {
  entry: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Records deliveries as received at the tail of the intake list: the acknowledgement's one
 * Redis command. Nothing is parsed here; the intake pump (intake/pump.ts) classifies each
 * delivery, records its receipt (the 7-day de-duplication, health, dead letters) and queues it.
 * Deliveries that arrive in the same event-loop turn go in one RPUSH, so a burst costs one
 * round trip instead of one per delivery. `record` rejects when Redis does not answer within
 * `timeoutMs`; the caller then spools.
 */
export class DeliveryRecorder {
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly intake: IntakeTarget,
    private readonly timeoutMs = 1_000,
  ) {}

  /** Whether Redis is connected; when it is not, the receiver spools without trying. */
  get available(): boolean {
    return this.redis.status === "ready";
  }

  /**
   * Appends a delivery. A spooled copy of a receipt whose first attempt timed out after all
   * is appended again under the same receipt id: the pump finds the de-duplication marker
   * holding this same receipt and queues it again (job ids and the digest path absorb the
   * repeat), so a Redis stall never loses a delivery.
   */
  record(rawBody: string, receivedAt: Date, receipt?: string): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.batch.push({
        entry: formatIntakeEntry(receivedAt.toISOString(), rawBody, {
          workspaceId: this.intake.workspaceId,
          receipt,
        }),
        resolve,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
    return withTimeout(done, this.timeoutMs, "Redis");
  }

  private flush(): void {
    while (this.batch.length > 0) {
      const items = this.batch.splice(0, MAX_BATCH);
      this.redis.rpush(this.intake.key, ...items.map((p) => p.entry)).then(
        () => {
          for (const p of items) p.resolve();
        },
        (err: unknown) => {
          // Not recorded: the caller spools each of them.
          for (const p of items) p.reject(err);
        },
      );
    }
    this.scheduled = false;
  }
}
