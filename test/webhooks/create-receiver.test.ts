import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { DeliveryHealthStore } from "../../src/store/delivery-health.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { openReceiver, type Receiver } from "../../src/webhooks/create-receiver.js";
import { Spool } from "../../src/webhooks/spool.js";
import { openIntake } from "../helpers/intake.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const THREAD = readFileSync(new URL("../fixtures/webhooks/chatthread-created.json", import.meta.url), "utf8");

describe("openReceiver (the web role's receiver)", () => {
  const prefix = uniquePrefix("receiver");
  const spoolDir = mkdtempSync(join(tmpdir(), "receiver-spool-"));
  const shared = createRedis(testRedisUrl(), "shared", silentLogger);
  const intake = openIntake({ redis: shared, prefix });
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    await intake.close();
    await dropPrefix(prefix);
    shared.disconnect();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("replays at start what a previous process left in the spool, when Redis is up", async () => {
    // A process that died while Redis was away: its delivery is on disk only.
    const before = new Spool(spoolDir, silentLogger);
    before.append({ receivedAt: "2025-03-05T18:02:12.000Z", body: THREAD });
    before.close();

    receiver = await openReceiver({
      redisUrl: testRedisUrl(),
      prefix,
      spoolDir,
      logger: silentLogger,
      metrics: createMetrics(),
      health: new DeliveryHealthStore(shared, stateKeys(prefix)),
    });
    const deadline = Date.now() + 5_000;
    let waiting = 0;
    while (Date.now() < deadline) {
      // The replay appends to the intake; the worker role's pump moves it into the queue.
      await intake.drain();
      waiting = (await intake.deliveries.getJobCounts("waiting")).waiting ?? 0;
      if (waiting > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(waiting).toBe(1);
    expect(await receiver.spool.sizeOnDisk()).toBe(0);
    const [job] = await intake.deliveries.getJobs(["waiting"]);
    expect(job?.data).toMatchObject({ receivedAt: "2025-03-05T18:02:12.000Z", deduplicated: true });
  });
});
