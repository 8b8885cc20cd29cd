import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { DeliveryRecorder } from "../intake/recorder.js";
import { newReceiptId } from "../intake/entry.js";
import type { Spool } from "./spool.js";

/** `recorded`: in the intake list (the pump classifies it); `spooled`: on local disk until Redis is back. */
export type IngestOutcome = "recorded" | "spooled";

/**
 * The receiver's decision path, free of HTTP: record in Redis, or append to the spool when
 * Redis is down or slow. Throws only when neither Redis nor the disk took it.
 */
export class DeliveryIngest {
  private replaying: Promise<void> | undefined;

  constructor(
    private readonly recorder: DeliveryRecorder,
    private readonly spool: Spool,
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {}

  /** `receipt`: a receipt kept earlier (webhooks/unrouted.ts) keeps its id; a new one otherwise. */
  async ingest(
    rawBody: string,
    receivedAt = new Date(),
    receipt = newReceiptId(),
  ): Promise<{ outcome: IngestOutcome }> {
    // Redis known to be down, or spooled deliveries still waiting: spool, to keep order.
    if (this.recorder.available && this.spool.pending === 0) {
      try {
        await this.recorder.record(rawBody, receivedAt, receipt);
        return { outcome: "recorded" };
      } catch (err) {
        this.logger.warn({ err }, "Redis unavailable; spooling delivery");
      }
    }
    this.spool.append({ receivedAt: receivedAt.toISOString(), body: rawBody, receipt });
    this.metrics?.spoolSize.set(this.spool.pending);
    this.replaySoon();
    return { outcome: "spooled" };
  }

  /** Replays the spool into Redis (idempotent; safe to call any time). */
  replay(): Promise<void> {
    // Cleared in `.finally`, which runs after the assignment: clearing inside the body would
    // run first when it returns at once (Redis still down) and leave a settled promise forever.
    this.replaying ??= (async () => {
      if (this.recorder.available) {
        const r = await this.spool.replay(async (d) => {
          await this.recorder.record(d.body, new Date(d.receivedAt), d.receipt);
        });
        this.metrics?.spoolSize.set(this.spool.pending);
        if (!r.failed && !this.spool.hasSegments()) return;
      }
      // Something is left on disk (Redis down, a replay cut short, segments from before a
      // restart): keep trying every second.
      this.replaySoon();
    })().finally(() => {
      this.replaying = undefined;
    });
    return this.replaying;
  }

  private timer: NodeJS.Timeout | undefined;

  /** While anything is spooled, try a replay every second until Redis takes it. */
  private replaySoon(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.spool.pending === 0 && !this.spool.hasSegments()) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      void this.replay().catch((err: unknown) => this.logger.warn({ err }, "spool replay failed"));
    }, 1_000);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.spool.close();
  }
}
