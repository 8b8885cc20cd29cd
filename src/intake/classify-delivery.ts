import { createHash } from "node:crypto";
import { stringify } from "safe-stable-stringify";
import {
  WEBHOOK_TYPES,
  webhookEnvelopeSchema,
  webhookEventSchema,
  type WebhookEvent,
} from "../insight/schemas.js";
import type { DeadLetter } from "../store/delivery-health.js";

export type ClassifiedDelivery =
  | { kind: "valid"; deliveryId: string; event: WebhookEvent }
  | {
      kind: "dead";
      deliveryId: string;
      reason: DeadLetter["reason"];
      webhookType: string | undefined;
      error: string;
    };

/**
 * A delivery's id is the hash of its canonical JSON (keys sorted), so a repeat of the same
 * delivery maps to the same id even if the sender re-serialised it; bodies that are not JSON
 * hash their raw bytes.
 */
export function deliveryIdOf(raw: Buffer | string, parsed?: unknown): string {
  const h = createHash("sha256");
  h.update(parsed === undefined ? raw : (stringify(parsed) ?? ""));
  return h.digest("hex").slice(0, 32);
}

const summarise = (issues: { path: PropertyKey[]; message: string }[]) =>
  issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");

/** Decides, without I/O, whether a delivery is a known valid event or a dead letter, and why. */
export function classifyDelivery(raw: Buffer | string): ClassifiedDelivery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
  } catch (e) {
    return {
      kind: "dead",
      deliveryId: deliveryIdOf(raw),
      reason: "invalid_json",
      webhookType: undefined,
      error: e instanceof Error ? e.message : "not JSON",
    };
  }
  const deliveryId = deliveryIdOf(raw, parsed);
  // The common case first: one schema pass for a valid delivery; the envelope is only
  // examined to say why one is not.
  const valid = webhookEventSchema.safeParse(parsed);
  if (valid.success) return { kind: "valid", deliveryId, event: valid.data };
  const envelope = webhookEnvelopeSchema.safeParse(parsed);
  if (!envelope.success) {
    const type =
      parsed && typeof parsed === "object" && "webhookType" in parsed
        ? String((parsed as { webhookType: unknown }).webhookType)
        : undefined;
    return {
      kind: "dead",
      deliveryId,
      reason: "invalid_envelope",
      webhookType: type,
      error: summarise(envelope.error.issues),
    };
  }
  const type = envelope.data.webhookType;
  if (!(WEBHOOK_TYPES as readonly string[]).includes(type)) {
    return {
      kind: "dead",
      deliveryId,
      reason: "unknown_type",
      webhookType: type,
      error: `unknown webhookType "${type.slice(0, 80)}"`,
    };
  }
  return {
    kind: "dead",
    deliveryId,
    reason: "invalid_payload",
    webhookType: type,
    error: summarise(valid.error.issues),
  };
}
