import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { captureLogger } from "../../helpers/capture-logger.js";
import { SlackCallError, classifyCode } from "../../../src/slack/errors.js";
import { EDIT_RETRY_MS, sendInTurn, type WaitReason } from "../../../src/slack/outbound/send-in-turn.js";

/** Slots 1 s apart from a clock the test moves; pushBack as the Redis throttle does it. */
function fakeTurns(start = 1_000) {
  let clock = start;
  let nextFree = 0;
  const waits: { until: number; reason: WaitReason }[] = [];
  const pushedBack: number[] = [];
  return {
    now: () => clock,
    waits,
    pushedBack,
    throttle: {
      async reserve(_channel: string, nowMs: number) {
        const slot = Math.max(nowMs, nextFree);
        nextFree = slot + 1_000;
        return slot;
      },
      async pushBack(_channel: string, untilMs: number) {
        pushedBack.push(untilMs);
        nextFree = Math.max(nextFree, untilMs);
      },
    },
    wait: async (until: number, reason: WaitReason) => {
      waits.push({ until, reason });
      clock = Math.max(clock, until);
    },
  };
}

const slackError = (code: string, retryAfterMs?: number) =>
  new SlackCallError("chat.postMessage", classifyCode(code, retryAfterMs));

describe("sendInTurn, the one outbound policy", () => {
  it("waits for the channel's slot before calling", async () => {
    const t = fakeTurns();
    const calledAt: number[] = [];
    for (let i = 0; i < 2; i++) {
      await sendInTurn({
        channel: "C1",
        ...t,
        logger: silentLogger,
        call: async () => calledAt.push(t.now()),
        onPermanent: async () => 0,
      });
    }
    expect(calledAt).toEqual([1_000, 2_000]);
    expect(t.waits).toEqual([{ until: 2_000, reason: "slot" }]);
  });

  it("a 429 pushes the channel back by Retry-After and waits, then calls again in a new slot", async () => {
    const t = fakeTurns();
    let calls = 0;
    const out = await sendInTurn({
      channel: "C1",
      ...t,
      logger: silentLogger,
      call: async () => {
        calls++;
        if (calls === 1) throw slackError("ratelimited", 5_000);
        return "ok";
      },
      onPermanent: async () => "permanent",
    });
    expect(out).toBe("ok");
    expect(t.pushedBack).toEqual([6_000]);
    expect(t.waits).toEqual([{ until: 6_000, reason: "rate_limited" }]);
    expect(calls).toBe(2);
  });

  it("a 429 of a method limited per workspace waits Retry-After without pushing the channel's posts back", async () => {
    const t = fakeTurns();
    const { logger, lines: raw } = captureLogger();
    const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    let calls = 0;
    const out = await sendInTurn({
      channel: "C1",
      ...t,
      logger,
      call: async () => {
        calls++;
        // Slack's 429 of an edit, then the hold our sender keeps of the method after it.
        if (calls === 1) throw new SlackCallError("chat.update", classifyCode("ratelimited", 5_000));
        if (calls === 2) {
          throw new SlackCallError("chat.update", { ...classifyCode("ratelimited", 2_000), held: true });
        }
        return "ok";
      },
      onPermanent: async () => "permanent",
    });
    expect(out).toBe("ok");
    expect(calls).toBe(3);
    // The method hold (method-hold.ts) keeps every process's edits waiting; the channel's posts go on.
    expect(t.pushedBack).toEqual([]);
    expect(t.waits).toEqual([
      { until: 6_000, reason: "rate_limited" },
      { until: 8_000, reason: "rate_limited" },
    ]);
    // Slack's 429 is a warning; our own hold after it is not news.
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      [40, "Slack rate limit; waiting"],
      [20, "Slack method held after a rate limit; waiting"],
    ]);
  });

  it("a hold known before the turn is waited out before the slot and the call, with no call meanwhile", async () => {
    const t = fakeTurns();
    const { logger, lines: raw } = captureLogger();
    const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    const reserved: number[] = [];
    const calledAt: number[] = [];
    // The sender's knowledge of the method's hold: until 3_500, then none.
    const heldUntil = () => (t.now() < 3_500 ? 3_500 : undefined);
    const out = await sendInTurn({
      channel: "C1",
      ...t,
      throttle: {
        reserve: async (channel, nowMs) => {
          reserved.push(nowMs);
          return t.throttle.reserve(channel, nowMs);
        },
        pushBack: t.throttle.pushBack,
      },
      logger,
      heldUntil,
      call: async () => calledAt.push(t.now()),
      onPermanent: async () => 0,
    });
    expect(out).toBe(1);
    expect(calledAt).toEqual([3_500]);
    // No slot is spent on a turn the hold would refuse.
    expect(reserved).toEqual([3_500]);
    expect(t.waits).toEqual([{ until: 3_500, reason: "rate_limited" }]);
    expect(t.pushedBack).toEqual([]);
    expect(lines().map((l) => [l.level, l.msg, l.channel])).toEqual([
      [20, "Slack method held after a rate limit; waiting", "C1"],
    ]);
  });

  it("a 429 is logged once, with the caller's context and the channel", async () => {
    const t = fakeTurns();
    const { logger, lines: raw } = captureLogger();
    const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    let calls = 0;
    await sendInTurn({
      channel: "C1",
      ...t,
      logger,
      context: { jobId: "digest:C1:T1" },
      call: async () => {
        if (++calls === 1) throw slackError("ratelimited", 5_000);
        return "ok";
      },
      onPermanent: async () => "permanent",
    });
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({
      level: 40,
      msg: "Slack rate limit; waiting",
      jobId: "digest:C1:T1",
      channel: "C1",
      retryAfterMs: 5_000,
    });
  });

  it("a permanent error goes to the caller's handler, never retried", async () => {
    const t = fakeTurns();
    let calls = 0;
    const out = await sendInTurn({
      channel: "C1",
      ...t,
      logger: silentLogger,
      call: async () => {
        calls++;
        throw slackError("channel_not_found");
      },
      onPermanent: async (c) => `handled ${c.code}`,
    });
    expect(out).toBe("handled channel_not_found");
    expect(calls).toBe(1);
  });

  it("transient and unknown errors are rethrown; request errors go to their handler when given", async () => {
    const t = fakeTurns();
    const base = { channel: "C1", ...t, logger: silentLogger, onPermanent: async () => "p" };
    const transient = slackError("internal_error");
    await expect(sendInTurn({ ...base, call: () => Promise.reject(transient) })).rejects.toBe(transient);
    const notSlack = new Error("lock busy");
    await expect(sendInTurn({ ...base, call: () => Promise.reject(notSlack) })).rejects.toBe(notSlack);
    const invalid = slackError("invalid_blocks");
    await expect(sendInTurn({ ...base, call: () => Promise.reject(invalid) })).rejects.toBe(invalid);
    const out = await sendInTurn({
      ...base,
      call: () => Promise.reject(invalid),
      onRequestError: async (c) => `refused ${c.code}`,
    });
    expect(out).toBe("refused invalid_blocks");
  });

  it("past maxRateLimitWaits the 429 is rethrown; a reserved slot is used for the first turn", async () => {
    const t = fakeTurns();
    const limited = slackError("ratelimited", 100);
    let calls = 0;
    await expect(
      sendInTurn({
        channel: "C1",
        ...t,
        reservedSlot: 4_000,
        maxRateLimitWaits: 2,
        logger: silentLogger,
        call: async () => {
          calls++;
          throw limited;
        },
        onPermanent: async () => "p",
      }),
    ).rejects.toBe(limited);
    expect(calls).toBe(3);
    expect(t.waits[0]).toEqual({ until: 4_000, reason: "slot" });
    expect(t.waits.filter((w) => w.reason === "rate_limited")).toHaveLength(2);
  });

  it("an edit's 5xx is tried once more after a sleep here, in a new slot; the second 5xx is rethrown", async () => {
    const t = fakeTurns();
    const slept: number[] = [];
    const sleepHere = async (until: number) => {
      slept.push(until - t.now());
      return true;
    };
    const failedEdit = new SlackCallError("chat.update", {
      kind: "transient",
      code: "http_500",
      retryable: true,
    });
    const calledAt: number[] = [];
    const { logger, lines: raw } = captureLogger();
    const out = await sendInTurn({
      channel: "C1",
      ...t,
      sleepHere,
      logger,
      context: { jobId: "j1" },
      call: async () => {
        calledAt.push(t.now());
        if (calledAt.length === 1) throw failedEdit;
        return "edited";
      },
      onPermanent: async () => "p",
    });
    expect(out).toBe("edited");
    expect(slept).toEqual([EDIT_RETRY_MS]);
    // The retry takes the channel's next turn.
    expect(calledAt).toEqual([1_000, 2_000]);
    expect(raw.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 20, jobId: "j1", channel: "C1", code: "http_500" }),
    ]);

    let calls = 0;
    const twice = sendInTurn({
      channel: "C1",
      ...t,
      sleepHere,
      logger: silentLogger,
      call: async () => {
        calls++;
        throw failedEdit;
      },
      onPermanent: async () => "p",
    });
    await expect(twice).rejects.toBe(failedEdit);
    expect(calls).toBe(2);
  });

  it("a post's 5xx (it may have posted), an edit with no sleep left here, and a request error are not tried again", async () => {
    const t = fakeTurns();
    const failedPost = slackError("internal_error");
    const failedEdit = new SlackCallError("chat.update", classifyCode("internal_error"));
    const refusedEdit = new SlackCallError("chat.update", classifyCode("invalid_blocks"));
    const cases = [
      { err: failedPost, sleepHere: async () => true },
      { err: failedEdit, sleepHere: async () => false },
      { err: refusedEdit, sleepHere: async () => true },
    ];
    for (const c of cases) {
      let calls = 0;
      await expect(
        sendInTurn({
          channel: "C1",
          ...t,
          sleepHere: c.sleepHere,
          logger: silentLogger,
          call: async () => {
            calls++;
            throw c.err;
          },
          onPermanent: async () => "p",
        }),
      ).rejects.toBe(c.err);
      expect(calls).toBe(1);
    }
  });
});
