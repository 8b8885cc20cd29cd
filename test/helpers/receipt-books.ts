import { receiptBooks } from "../../src/intake/receipt-books.js";
import { recordReceipts, type Receipt } from "../../src/intake/receipts.js";
import { silentLogger } from "../../src/log.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "./redis.js";

/**
 * The receipt books of the test Redis, each set up on a prefix of its own (`tag`), with
 * `record` as the pump records a batch (at the clock `at` sets, else now), and `close` to drop
 * them all (afterAll).
 */
export function receiptsOnTestRedis(tag: string) {
  const redis = createRedis(testRedisUrl(), "shared", silentLogger);
  const prefixes: string[] = [];
  const setUp = () => {
    const prefix = uniquePrefix(tag);
    prefixes.push(prefix);
    const book = receiptBooks(redis, prefix)(undefined);
    const metrics = createMetrics();
    let clock: number | undefined;
    const record = (...rs: Receipt[]) =>
      recordReceipts(redis, book, rs, { metrics, logger: silentLogger, now: () => clock ?? Date.now() });
    return { book, metrics, record, at: (ms: number) => (clock = ms), prefix };
  };
  /** Deliveries counted with `outcome` (of `type`, default chatthread-crud). */
  const count = async (metrics: Metrics, outcome: string, type = "chatthread-crud") =>
    (await metrics.deliveries.get()).values.find(
      (v) => v.labels.outcome === outcome && v.labels.type === type,
    )?.value ?? 0;
  const close = async () => {
    redis.disconnect();
    for (const p of prefixes) await dropPrefix(p);
  };
  return { redis, setUp, count, close };
}
