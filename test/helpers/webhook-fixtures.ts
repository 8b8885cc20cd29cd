import { readFileSync } from "node:fs";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import type { Receipt } from "../../src/intake/receipts.js";

/** A webhook body of test/fixtures/webhooks/ as sent (e.g. "chatthread-created"). */
export const webhookFixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/webhooks/${name}.json`, import.meta.url), "utf8");

/** A receipt of the intake for `body`, as the pump makes it (its id when given). */
export const receiptOf = (body: string, receivedAt: string, id?: string): Receipt => ({
  c: classifyDelivery(body),
  receivedAt,
  ...(id ? { receipt: id } : {}),
  body,
});
