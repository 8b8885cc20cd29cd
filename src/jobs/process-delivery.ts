import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { DeliveryJob } from "./job-types.js";
import { routeMessageEvent, type MessageRouteDeps, type MessageRouteResult } from "./route-message-event.js";
import { routeThreadEvent, type RouteDeps, type RouteResult } from "./route-thread-event.js";

export type DeliveryResult =
  | { kind: "thread"; route: RouteResult }
  | { kind: "message"; groupId: string; cards: MessageRouteResult }
  | { kind: "repeat" };

export interface ProcessDeliveryDeps extends RouteDeps {
  health: Pick<DeliveryHealthStore, "recordMessage">;
  /** Whether this delivery was received before, within 7 days (see `repeatCheck` in intake/receipts.ts). */
  isRepeat?: (deliveryId: string, receivedAt: string) => Promise<boolean>;
  /** chatmessage-crud: counts edits and replies under cards. */
  messages: MessageRouteDeps;
}

/** The deliveries worker: thread enrichment goes to routing, messages to activity counts. */
export async function processDelivery(
  delivery: DeliveryJob,
  deps: ProcessDeliveryDeps,
): Promise<DeliveryResult> {
  const { event, deliveryId, receivedAt, deduplicated } = delivery;
  // First step, for jobs queued before the receiver's script checked the marker itself.
  if (!deduplicated && deps.isRepeat && (await deps.isRepeat(deliveryId, receivedAt))) {
    return { kind: "repeat" };
  }
  if (event.webhookType === "chatmessage-crud") {
    const p = event.payload;
    // messageTimestamp is only "some string" on the wire: count the message on the delivery's
    // day when it does not parse.
    const at =
      p.messageTimestamp && !Number.isNaN(Date.parse(p.messageTimestamp)) ? p.messageTimestamp : p.timestamp;
    await deps.health.recordMessage(p.groupId, p.messageId, at);
    // Cards of the thread: counts follow, and replies go under them when asked for.
    return { kind: "message", groupId: p.groupId, cards: await routeMessageEvent(event, deps.messages) };
  }
  return { kind: "thread", route: await routeThreadEvent(event, deps) };
}
