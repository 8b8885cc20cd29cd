import { EventEmitter } from "node:events";
import { LockManager, Worker, type LockManagerWorkerContext } from "bullmq";

/**
 * BullMQ's lock renewal, with its timer running only while the worker holds jobs. BullMQ's own
 * ticks every `lockRenewTime / 2` (7.5 s) from the worker's start, jobs or none: with a worker
 * per queue, most of the wake-ups of an idle process. What a tick does is BullMQ's: extend the
 * locks of the jobs held longer than `lockRenewTime / 2`, and mark new ones.
 */
export class LockRenewalWhileWorking extends LockManager {
  private started = false;

  override start(): void {
    this.started = true;
    this.arm();
  }

  override trackJob(
    jobId: string,
    token: string,
    ts: number,
    shouldCreateController?: boolean,
  ): ReturnType<LockManager["trackJob"]> {
    const controller = super.trackJob(jobId, token, ts, shouldCreateController);
    this.arm();
    return controller;
  }

  /** The next tick, when none is set and a job is held. */
  private arm(): void {
    const due = this.opts.lockRenewTime / 2;
    if (!this.started || this.closed || this.lockRenewalTimer || due <= 0 || this.trackedJobs.size === 0)
      return;
    this.lockRenewalTimer = setTimeout(() => void this.tick(), due);
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    const extend: string[] = [];
    for (const [jobId, tracked] of this.trackedJobs) {
      if (!tracked.ts) {
        this.trackedJobs.set(jobId, { ...tracked, ts: now });
        continue;
      }
      if (tracked.ts + this.opts.lockRenewTime / 2 < now) {
        this.trackedJobs.set(jobId, { ...tracked, ts: now });
        extend.push(jobId);
      }
    }
    if (extend.length > 0) await this.extendLocks(extend);
    this.lockRenewalTimer = undefined;
    this.arm();
  }
}

/**
 * A BullMQ worker that sleeps while it has nothing to do: its lock renewal runs only while it
 * holds jobs (LockRenewalWhileWorking), and its blocking fetch waits as long when a delayed job
 * waits (a scheduler's next run, hours away) as when none does: `drainDelay`
 * (store/idle-look.ts), where BullMQ caps the former at 10 s, so that two queues that always hold
 * a scheduled job woke an idle process every 10 s. A job due sooner still wakes it when due.
 */
export class QuietWorker extends Worker {
  override get maximumBlockTimeout(): number {
    return this.opts.drainDelay ?? super.maximumBlockTimeout;
  }

  protected override createLockManager(): void {
    // What BullMQ's own lock manager is given (the worker itself, whose `trace` BullMQ's types
    // do not line up with): no telemetry is configured here, so a trace is its callback.
    const context: LockManagerWorkerContext = {
      name: this.name,
      extendJobLocks: (jobIds, tokens, duration) => this.extendJobLocks(jobIds, tokens, duration),
      emit: (event: string | symbol, ...args: unknown[]) =>
        EventEmitter.prototype.emit.call(this, event, ...args),
      trace: (_kind, _operation, _destination, callback) => callback(),
    };
    this.lockManager = new LockRenewalWhileWorking(context, {
      lockRenewTime: this.opts.lockRenewTime ?? (this.opts.lockDuration ?? 30_000) / 2,
      lockDuration: this.opts.lockDuration ?? 30_000,
      workerId: this.id,
      ...(this.opts.name ? { workerName: this.opts.name } : {}),
    });
  }
}
