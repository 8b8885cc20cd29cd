import type { Job } from "bullmq";
import type { Feature } from "../feature.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import {
  isDeliveryBatch,
  QUEUE_NAMES,
  type DeliveriesJob,
  type DeliveryJob,
  type Producer,
  type RefreshJob,
  type SlackJob,
} from "./job-types.js";
import { limitPerQueue } from "./limit-per-queue.js";
import { processDeliveryBatch, splitDeliveryBatch } from "./process-batch.js";
import { processDelivery, type ProcessDeliveryDeps } from "./process-delivery.js";
import { cappedBackoff } from "./retry-policy.js";
import type { MessageRouteDeps } from "./route-message-event.js";
import { routeThreadEvent, type RouteDeps } from "./route-thread-event.js";
import { sendNowOrQueue } from "./send-now.js";
import { queuedAttempt } from "./slack-jobs/attempt.js";
import type { SlackJobDeps } from "./slack-jobs/deps.js";
import { waitInPlace } from "./slack-jobs/wait-in-place.js";
import { processSlackJob } from "./slack-jobs/process-slack-job.js";

/** One workspace's relay: its routing, its message deliveries, its Slack jobs. */
export interface RelayDeps {
  route: RouteDeps;
  /** chatmessage-crud: counts edits and replies under cards. */
  messages: MessageRouteDeps;
  /** Message deliveries count towards each followed group's daily activity. */
  health: Pick<DeliveryHealthStore, "recordMessage">;
  /** The deliveries job's first step: is it a repeat whose first job is gone? */
  isRepeat?: (deliveryId: string, receivedAt: string) => Promise<boolean>;
  slackOut: SlackJobDeps;
  /** Where a delivery that failed in a batch job goes again, as a job of its own. */
  deliveriesQueue: () => Producer<DeliveriesJob>;
}

export interface RelayOptions {
  /**
   * Cards go at once when their channel's turn is now (send-now.ts). Off with many workspaces:
   * there the Slack queue's fair turns keep one workspace's flood from holding back another's
   * card, and a delivery's job waiting on Slack would hold the deliveries queue instead.
   */
  sendAtOnce: boolean;
  concurrency?: { deliveries?: number; slack?: number; refresh?: number };
}

/**
 * The relay itself: deliveries are routed to the channels whose filters match, enrichment the
 * listing did not have yet is looked for again later, and each Slack effect is sent in its
 * channel's turn: a card at once when the turn is now, anything else through the Slack queue.
 * Workers only; the receiver that feeds them is the web role's.
 */
/** Slack worker slots that never sleep for a channel's turn: other channels' sends keep going. */
const SLACK_SLOTS_KEPT = 8;

export function relayFeature<Command>(o: RelayOptions): Feature<RelayDeps, Command> {
  const c = o.concurrency ?? {};
  const routeOf = (deps: RelayDeps): RouteDeps =>
    o.sendAtOnce
      ? {
          ...deps.route,
          slackQueue: sendNowOrQueue({
            slackOut: deps.slackOut,
            slackQueue: deps.route.slackQueue,
            logger: deps.route.logger,
          }),
        }
      : deps.route;
  // Deliveries in flight at once in each shard's worker, in jobs of one delivery and in batch
  // jobs alike (as fifty jobs of one delivery were), whatever workspace they are of: a batch is
  // one job to BullMQ, and fifty batches at once must not make thousands of Slack calls at once.
  const inFlight = limitPerQueue(c.deliveries ?? 50);
  // Slack jobs at once in each shard's worker. Most of them, under a 429 storm, only sleep for
  // their channel's turn a second away (wait-in-place.ts), as the deliveries' cards do: with 8
  // slots, 6 could, and a counts edit past them went through Redis and back every second
  // (bench:steady's faults row at steady state: 4.6 ms a delivery with 8, 2.7 with 48).
  const slackSlots = c.slack ?? 48;
  return {
    name: "relay",
    workers: [
      {
        queue: QUEUE_NAMES.deliveries,
        processor: (deps) => {
          const processing: ProcessDeliveryDeps = {
            ...routeOf(deps),
            health: deps.health,
            messages: deps.messages,
            ...(deps.isRepeat ? { isRepeat: deps.isRepeat } : {}),
          };
          const processIn = (queue: string) => (delivery: DeliveryJob) =>
            inFlight(queue)(() => processDelivery(delivery, processing));
          return (job: Job<DeliveriesJob>) => {
            const process = processIn(job.queueName);
            if (!isDeliveryBatch(job.data)) return process(job.data);
            const batchDeps = { process, deliveriesQueue: deps.deliveriesQueue, logger: deps.route.logger };
            // Its second run (a stall, a failure): split, so that no batch is ever cut short twice.
            return job.attemptsStarted > 1
              ? splitDeliveryBatch(job.data.batch, batchDeps, job.id)
              : processDeliveryBatch(job.data.batch, batchDeps);
          };
        },
        // A delivery's job also sends its card (send-now.ts): it mostly waits on Slack and Redis.
        // Fifty at once keep a burst moving (bench:pipeline: every card with its sentiment in
        // half the time of ten, for no more CPU a digest) and their store commands share writes.
        concurrency: c.deliveries ?? 50,
      },
      {
        queue: QUEUE_NAMES.refresh,
        // Any listing read after this refresh fell due serves it: refreshes that fall due together share one read.
        processor: (deps) => {
          const route = routeOf(deps);
          return (job: Job<RefreshJob>) =>
            routeThreadEvent(job.data.event, route, {
              notBeforeMs: job.timestamp + (job.opts.delay ?? 0),
              attempt: job.data.attempt,
              waited: job.data.waited,
              recount: job.data.recount,
            });
        },
        concurrency: c.refresh ?? 4,
      },
      {
        queue: QUEUE_NAMES.slack,
        processor: (deps) => {
          // All but eight of its slots may sleep for a channel's turn; those keep other channels going.
          const inPlace = waitInPlace({ cap: Math.max(1, slackSlots - SLACK_SLOTS_KEPT) });
          // A counts window's edits go from its job when their turn is now, as a delivery's cards do.
          const slackOut: SlackJobDeps = o.sendAtOnce
            ? {
                ...deps.slackOut,
                countsEdits: sendNowOrQueue(
                  {
                    slackOut: deps.slackOut,
                    slackQueue: deps.slackOut.slackQueue,
                    logger: deps.route.logger,
                  },
                  ["card"],
                ),
              }
            : deps.slackOut;
          return (job: Job<SlackJob>, token?: string) =>
            processSlackJob(queuedAttempt(job, token), slackOut, { inPlace });
        },
        concurrency: slackSlots,
        settings: { backoffStrategy: (n: number) => cappedBackoff(n) },
      },
    ],
  };
}
