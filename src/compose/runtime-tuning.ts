import type { WorkerTuning } from "../jobs/create-worker.js";

/** Knobs tests turn; production uses the defaults. */
export interface RuntimeTuning extends WorkerTuning {
  refreshDelaysMs?: number[];
  /** Short looks for the sentiment before a thread's first card goes out without it (route-thread-event.ts). */
  firstPostWaitsMs?: number[];
  channelGapMs?: number;
  lookupCacheMs?: number;
  insightTimeoutMs?: number;
  insightRetry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; maxTotalMs?: number };
  workerConcurrency?: { deliveries?: number; slack?: number; refresh?: number };
  /** How long a (channel, thread) posting lock outlives a killed worker. */
  digestLockTtlMs?: number;
  /** At most one counts edit per card per this long (chatmessage-crud). */
  countsDebounceMs?: number;
  /** New messages within this long go as one reply under the card (`--replies on`). */
  repliesBatchMs?: number;
  /** Between two evaluations of the alerts; default 5 minutes. */
  alertsIntervalMs?: number;
  /** Between two looks of the health watch (workers that cannot fetch, a growing spool, a stalled intake); default 15 s. */
  healthWatchMs?: number;
  /** Shards of the deliveries, slack-out and refresh queues; default 4 on a cluster, 1 on one Redis. */
  queueShards?: number;
  /** How long the intake pump's lease outlives a killed process (intake/pump.ts); default 15 s. */
  intakeLeaseMs?: number;
  /** How long a woken intake pump lets deliveries gather before a step (intake/pump.ts); default 1 s. */
  intakeLingerMs?: number;
  /** How long a delivery may sit at the intake's head before the health watch alerts; default 60 s. */
  intakeStalledMs?: number;
  /** How long workers must look fine before the health watch closes their incident; default 60 s. */
  workersFineHoldMs?: number;
}
