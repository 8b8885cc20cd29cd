import { UnrecoverableError } from "bullmq";
import type { Logger } from "../log.js";
import type { Producer, SlackJob, SlackJobKind } from "./job-types.js";
import type { SlackAttempt, SlackOutcome } from "./slack-jobs/attempt.js";
import type { SlackJobDeps } from "./slack-jobs/deps.js";
import { processSlackJob } from "./slack-jobs/process-slack-job.js";
import { waitInPlace, type WaitInPlace } from "./slack-jobs/wait-in-place.js";

/**
 * Cards at once that may sleep for their channel's turn together (wait-in-place.ts): each holds one
 * of the deliveries in flight (relay-feature.ts, fifty), and the other two keep moving. A sleep
 * lasts 1.5 s at most; a card past the cap goes through the Slack queue, which under a 429 storm
 * cost more than the sleeps (bench:steady's faults row: 3.02-3.06 ms a delivery with 40 and
 * without the tries below, 2.34-2.36 with both, in both orders).
 */
const IN_PLACE_CAP = 48;

export interface SendNowDeps {
  slackOut: SlackJobDeps;
  /** Where a card that cannot go at once is queued (a getter: see `healingQueue`). */
  slackQueue: () => Producer<SlackJob>;
  logger: Logger;
}

/** The attempt at once was asked to wait: the Slack job takes over, delayed to `untilMs`. */
class Deferred extends Error {
  constructor(readonly untilMs: number) {
    super("deferred to the Slack queue");
  }
}

/**
 * Tries of one send at once: between them it sleeps for what it was asked to wait, when that may
 * be slept here (another job posting the card holds it for a Slack call: a moment; posting-lock.ts).
 */
const IN_PLACE_TRIES = 4;

/**
 * The attempt, and again after a wait it asked for when that wait can be slept here: the job's
 * trip through Redis and back (moved to delayed, promoted, fetched, prepared again) costs more
 * than the wait. A wait too long or past the cap is thrown, for the Slack queue.
 */
async function attemptInPlace(
  attempt: SlackAttempt,
  deps: SlackJobDeps,
  inPlace: WaitInPlace,
  now: () => number,
): Promise<SlackOutcome> {
  for (let tries = 1; ; tries++) {
    try {
      return await processSlackJob(attempt, deps, { inPlace });
    } catch (err) {
      if (!(err instanceof Deferred) || tries >= IN_PLACE_TRIES || !(await inPlace.wait(err.untilMs, now))) {
        throw err;
      }
    }
  }
}

/**
 * A producer of Slack jobs that sends a digest card (or another of `kinds`: a counts window's
 * edits, slack-jobs/counts-due.ts) at once, in the job that asked for it, when its channel's
 * turn is now: one job a digest instead of two (the Slack job's add, fetch and completion, about
 * a third of a digest's Redis commands). It is the Slack job's own code
 * (`processSlackJob`), so the guarantees are the same: the posting lock, the posting mark a
 * crashed attempt leaves, the version check. Whatever would wait (the channel's next slot, a
 * 429, another job posting the thread) or fail goes to the Slack queue as it would have gone,
 * with its reserved slot, delayed to its turn; the other kinds of Slack job are queued.
 * A turn a second or so away (a 429's Retry-After) is slept here, by up to IN_PLACE_CAP cards at once.
 */
export function sendNowOrQueue(
  deps: SendNowDeps,
  kinds: readonly SlackJobKind[] = ["digest"],
): () => Producer<SlackJob> {
  const now = deps.slackOut.now ?? Date.now;
  const inPlace = waitInPlace({ cap: IN_PLACE_CAP });
  const producer: Producer<SlackJob> = {
    add: async (name, data, opts) => {
      if (!kinds.includes(data.kind)) return deps.slackQueue().add(name, data, opts);
      let current: SlackJob = data;
      const attempt: SlackAttempt = {
        id: opts?.jobId,
        get data() {
          return current;
        },
        updateData: async (next) => {
          current = next;
        },
        deferUntil: async (untilMs) => {
          throw new Deferred(untilMs);
        },
      };
      try {
        return await attemptInPlace(attempt, deps.slackOut, inPlace, now);
      } catch (err) {
        if (err instanceof Deferred) {
          const wait = Math.ceil(err.untilMs - now());
          return deps.slackQueue().add(name, current, { ...opts, ...(wait > 0 ? { delay: wait } : {}) });
        }
        if (err instanceof UnrecoverableError && current.kind === "digest") {
          // Refused for good (invalid_blocks; a revoked token, whose alert is already raised): the
          // queued job records the failure, as a Slack job's own attempt would, without a second call.
          return deps.slackQueue().add(name, { ...current, refusedAtOnce: err.message }, opts);
        }
        // The queue retries it with its backoff, or records it as failed.
        deps.logger.debug(
          { err, jobId: opts?.jobId },
          "digest not sent at once; queued for the Slack worker",
        );
        return deps.slackQueue().add(name, current, opts);
      }
    },
  };
  return () => producer;
}
