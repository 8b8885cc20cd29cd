import type { Job } from "bullmq";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { DeliveryJob } from "./queues.js";
import { routeThreadEvent, type RouteDeps, type RouteResult } from "./route-thread-event.js";

export type DeliveryResult =
  { kind: "thread"; route: RouteResult } | { kind: "message"; groupId: string } | { kind: "repeat" };

export interface ProcessDeliveryDeps extends RouteDeps {
  health: Pick<DeliveryHealthStore, "recordMessage">;
  /** Whether this delivery was received before, within 7 days (see webhooks' `repeatCheck`). */
  isRepeat?: (deliveryId: string, receivedAt: string) => Promise<boolean>;
}

/** The deliveries worker: thread enrichment goes to routing, messages to activity counts. */
export async function processDelivery(
  job: Job<DeliveryJob>,
  deps: ProcessDeliveryDeps,
): Promise<DeliveryResult> {
  const { event, deliveryId, receivedAt } = job.data;
  // First step: the receiver enqueues without waiting for its de-duplication marker.
  if (deps.isRepeat && (await deps.isRepeat(deliveryId, receivedAt))) return { kind: "repeat" };
  if (event.webhookType === "chatmessage-crud") {
    const p = event.payload;
    // messageTimestamp is only "some string" on the wire: count the message on the delivery's
    // day when it does not parse.
    const at =
      p.messageTimestamp && !Number.isNaN(Date.parse(p.messageTimestamp)) ? p.messageTimestamp : p.timestamp;
    await deps.health.recordMessage(p.groupId, p.messageId, at);
    return { kind: "message", groupId: p.groupId };
  }
  return { kind: "thread", route: await routeThreadEvent(event, deps) };
}
