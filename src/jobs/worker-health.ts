import type { Queue, Worker } from "bullmq";

export interface WorkerProbe {
  name: string;
  ok: boolean;
  reason?: string;
}

/**
 * Whether workers are actually processing (rule 8): a worker object that says "running" can
 * still sit idle after a Redis reconnect. A queue with jobs waiting and no job started for
 * `stuckAfterMs` counts as stopped.
 */
export class WorkerHealth {
  private readonly lastActive = new Map<string, number>();

  constructor(
    private readonly entries: { worker: Worker; queue: () => Queue }[],
    private readonly stuckAfterMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    for (const { worker } of entries) {
      this.lastActive.set(worker.name, now());
      const touch = () => this.lastActive.set(worker.name, this.now());
      worker.on("active", touch);
      worker.on("completed", touch);
      worker.on("failed", touch);
      worker.on("drained", touch);
    }
  }

  async probe(): Promise<WorkerProbe[]> {
    return Promise.all(
      this.entries.map(async ({ worker, queue }): Promise<WorkerProbe> => {
        if (!worker.isRunning()) return { name: worker.name, ok: false, reason: "not running" };
        if (worker.isPaused()) return { name: worker.name, ok: false, reason: "paused" };
        const idleMs = this.now() - (this.lastActive.get(worker.name) ?? 0);
        if (idleMs > this.stuckAfterMs) {
          const waiting = await queue().getWaitingCount();
          if (waiting > 0) {
            return {
              name: worker.name,
              ok: false,
              reason: `${waiting} jobs waiting, none started for ${Math.round(idleMs / 1000)} s`,
            };
          }
        }
        return { name: worker.name, ok: true };
      }),
    );
  }
}
