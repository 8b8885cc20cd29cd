import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { classifySlackError } from "../../../src/slack/errors.js";
import { MethodHold } from "../../../src/slack/outbound/method-hold.js";
import { createSlackSender } from "../../../src/slack/outbound/slack-sender.js";
import { stateKeys, workspacePrefix } from "../../../src/store/keys.js";
import { createRedis } from "../../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../../helpers/redis.js";
import { slackApiFor, useSlackStandIn } from "../../helpers/slack.js";

const slack = useSlackStandIn();

/** What a rejected send was classified as, or "ok". */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (err: unknown) => {
      const c = classifySlackError(err);
      return c.kind === "rate_limited" ? `rate_limited ${c.retryAfterMs}${c.held ? " held" : ""}` : c.code;
    },
  );

describe("a 429 of a per-workspace method holds it for the workspace (real Redis, stand-in Slack)", () => {
  let redis: Redis;
  let prefix: string;
  let clock: number;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("hold");
    clock = Date.now();
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  /** One workspace's sender: its own key prefix, as multi-workspace mode builds it. */
  const senderOf = (workspaceId: string) =>
    createSlackSender(
      slackApiFor(slack.current).api,
      new MethodHold(redis, stateKeys(workspacePrefix(prefix, workspaceId))),
      () => clock,
    );
  const updates = () => slack.current.calls.filter((c) => c.method === "chat.update");

  it("chat.update limited in one channel: the workspace's other channels wait Retry-After without calling", async () => {
    const alpha = senderOf("T0ALPHA");
    const c1 = await alpha.post({ channel: "C1", text: "one" });
    const c2 = await alpha.post({ channel: "C2", text: "two" });
    slack.current.fail.rateLimit("chat.update", { count: 1, retryAfterSeconds: 20 });
    expect(await outcome(alpha.update({ channel: "C1", ts: c1, text: "one, edited" }))).toBe(
      "rate_limited 20000",
    );
    clock += 5_000;
    // Held: no call reaches Slack, and the wait left is what Retry-After said less the time gone.
    expect(await outcome(alpha.update({ channel: "C2", ts: c2, text: "two, edited" }))).toBe(
      "rate_limited 15000 held",
    );
    expect(updates()).toHaveLength(1);
    // Posting is limited per channel (the channel's slot waits for its 429): not held here.
    expect(await outcome(alpha.post({ channel: "C3", text: "three" }))).toBe("ok");
    clock += 15_001;
    expect(await outcome(alpha.update({ channel: "C2", ts: c2, text: "two, edited" }))).toBe("ok");
    expect(updates()).toHaveLength(2);
  });

  it("a hold met or read is known to the sender until it ends, so a send can wait before it locks anything", async () => {
    const keys = stateKeys(workspacePrefix(prefix, "T0ALPHA"));
    const alpha = senderOf("T0ALPHA");
    const ts = await alpha.post({ channel: "C1", text: "one" });
    expect(alpha.heldUntil?.("chat.update")).toBeUndefined();
    slack.current.fail.rateLimit("chat.update", { count: 1, retryAfterSeconds: 20 });
    expect(await outcome(alpha.update({ channel: "C1", ts, text: "edited" }))).toBe("rate_limited 20000");
    expect(alpha.heldUntil?.("chat.update")).toBe(clock + 20_000);
    // Posts are limited per channel: never held.
    expect(alpha.heldUntil?.("chat.postMessage")).toBeUndefined();

    // Another process (a sender of its own over the same keys) learns the hold from Redis once.
    const other = senderOf("T0ALPHA");
    expect(other.heldUntil?.("chat.update")).toBeUndefined();
    expect(await outcome(other.update({ channel: "C1", ts, text: "edited" }))).toBe(
      "rate_limited 20000 held",
    );
    expect(other.heldUntil?.("chat.update")).toBe(clock + 20_000);
    // Known, it is refused without reading Redis again: gone from Redis, still held here.
    await redis.del(keys.slackHold("chat.update"));
    expect(await outcome(other.update({ channel: "C1", ts, text: "edited" }))).toBe(
      "rate_limited 20000 held",
    );
    expect(updates()).toHaveLength(1);

    clock += 20_000;
    expect(other.heldUntil?.("chat.update")).toBeUndefined();
    expect(await outcome(other.update({ channel: "C1", ts, text: "edited" }))).toBe("ok");
    expect(updates()).toHaveLength(2);
  });

  it("another workspace's edits are not held by it", async () => {
    const alpha = senderOf("T0ALPHA");
    const bravo = senderOf("T0BRAVO");
    const a = await alpha.post({ channel: "C1", text: "alpha" });
    const b = await bravo.post({ channel: "C1", text: "bravo" });
    slack.current.fail.rateLimit("chat.update", { count: 1, retryAfterSeconds: 20 });
    expect(await outcome(alpha.update({ channel: "C1", ts: a, text: "alpha, edited" }))).toBe(
      "rate_limited 20000",
    );
    expect(await outcome(bravo.update({ channel: "C1", ts: b, text: "bravo, edited" }))).toBe("ok");
  });
});
