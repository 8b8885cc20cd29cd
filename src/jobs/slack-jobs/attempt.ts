import { DelayedError, type Job } from "bullmq";
import type { SlackJob } from "../job-types.js";

/** `asked`: the edits it found needed are sent or queued (a counts window's, counts-due.ts). */
export type SlackOutcome = "posted" | "updated" | "stale" | "paused" | "sent" | "held" | "asked";

/**
 * What one attempt at a Slack effect needs of its job: a queued job's (`queuedAttempt`), or a
 * send tried at once in the delivery's own job (send-now.ts), whose waits hand it to the queue.
 */
export interface SlackAttempt<J extends SlackJob = SlackJob> {
  /** The job's id (or the id its job would have): logged with the outcome. */
  readonly id: string | undefined;
  readonly data: J;
  /** Keeps the slot reserved for this effect with it, so that a later attempt keeps its turn. */
  updateData(data: SlackJob): Promise<void>;
  /** Comes back at `untilMs`; never returns (nothing after the wait runs in this attempt). */
  deferUntil(untilMs: number): Promise<never>;
}

/** A queued job's attempt: a wait moves the job to delayed and ends the attempt (BullMQ's DelayedError). */
export function queuedAttempt(job: Job<SlackJob>, token: string | undefined): SlackAttempt {
  return {
    get id() {
      return job.id;
    },
    get data() {
      return job.data;
    },
    updateData: (data) => job.updateData(data),
    deferUntil: async (untilMs) => {
      await job.moveToDelayed(Math.ceil(untilMs), token);
      throw new DelayedError();
    },
  };
}
