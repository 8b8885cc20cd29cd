import type { Logger } from "../../log.js";
import { classifySlackError, SlackCallError, type SlackErrorClassification } from "../errors.js";
import type { ChannelThrottle } from "./channel-throttle.js";
import { limitsTheChannel } from "./method-hold.js";

/** The debug line of a send that waits for our own hold of its method (known before, or met as a refusal). */
const HELD = "Slack method held after a rate limit; waiting";

/**
 * Methods whose call may be repeated whatever the first one did: an edit sets the message to
 * the same text again. A post that failed may have posted (a retry must look for it first).
 */
const REPEATABLE_METHODS: ReadonlySet<string> = new Set(["chat.update"]);

/** How long an edit that failed for a moment (a 5xx, a timeout) waits before its one retry here. */
export const EDIT_RETRY_MS = 1_000;

/** Whether a failed call was an edit that failed for a moment, and may be repeated as it is. */
function repeatableMoment(err: unknown, c: SlackErrorClassification): boolean {
  return c.kind === "transient" && err instanceof SlackCallError && REPEATABLE_METHODS.has(err.method);
}

/** Why a sender is asked to wait. */
export type WaitReason = "slot" | "rate_limited";

export interface SendInTurn<T> {
  channel: string;
  /** The per-channel send slots shared by every process (rule 7). */
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  now: () => number;
  /**
   * The caller's way to wait until `untilMs`: a run sleeps; a queued job moves itself to
   * delayed and throws (BullMQ's DelayedError), so nothing after the wait runs in this attempt.
   */
  wait: (untilMs: number, reason: WaitReason) => Promise<void>;
  /** A slot this send reserved before (a delayed job's own); the first turn uses it. */
  reservedSlot?: number;
  /** A slot at most this far ahead is taken at once: a wait costs more than it spaces. */
  earlyMs?: number;
  /** 429s waited out in one send; past that the 429 is rethrown. Default: no limit. */
  maxRateLimitWaits?: number;
  /** The Slack call(s) of this turn. */
  call: () => Promise<T>;
  /**
   * Until when the call's method is known to be held after a 429 (method-hold.ts), if it is:
   * waited out before the slot and the call, as a 429 would be, without calling.
   */
  heldUntil?: () => number | undefined;
  /**
   * The caller's way to sleep until `untilMs` where it is (true), or not (false): an edit that
   * failed for a moment is then tried once more in this send, EDIT_RETRY_MS later, instead of
   * being rethrown for the queue's retry (a job's add, fetch and completion). Default: rethrown.
   */
  sleepHere?: (untilMs: number) => Promise<boolean>;
  /** Slack refused for good (channel gone, token revoked): the caller's answer (alert, pause, give up). */
  onPermanent: (c: SlackErrorClassification) => Promise<T>;
  /** Slack refused this request and would refuse it again (invalid_blocks...); default: rethrown. */
  onRequestError?: (c: SlackErrorClassification) => Promise<T>;
  /** Where 429s are logged, with the channel and `context`. */
  logger: Logger;
  /**
   * The caller's context for that line (the job id): fields, rather than a child logger, which
   * would be made for every send and used only on a 429.
   */
  context?: Record<string, unknown>;
}

/**
 * The one policy for sending to Slack: reserve the channel's slot, wait for it, call, and
 * classify a failure. A 429 waits `Retry-After`: one of a method limited per channel
 * (`chat.postMessage`) pushes the channel's next slot back for every process; one of a method
 * limited per workspace holds that method instead (method-hold.ts), and the channel's posts go
 * on. A permanent error goes to the caller's handler; anything else (transient,
 * unknown, or not Slack's) is rethrown for the queue to retry.
 */
export async function sendInTurn<T>(o: SendInTurn<T>): Promise<T> {
  const early = o.earlyMs ?? 0;
  const maxWaits = o.maxRateLimitWaits ?? Number.POSITIVE_INFINITY;
  let editRetried = false;
  for (let waits = 0; ; waits++) {
    const held = waits < maxWaits ? o.heldUntil?.() : undefined;
    if (held !== undefined) {
      o.logger.debug({ ...o.context, channel: o.channel }, HELD);
      await o.wait(held, "rate_limited");
      continue;
    }
    const slot =
      waits === 0 && o.reservedSlot !== undefined
        ? o.reservedSlot
        : await o.throttle.reserve(o.channel, o.now());
    if (slot > o.now() + early) await o.wait(slot, "slot");
    try {
      return await o.call();
    } catch (err) {
      const c = classifySlackError(err);
      if (c.kind === "rate_limited" && waits < maxWaits) {
        const until = o.now() + (c.retryAfterMs ?? 1_000);
        if (limitsTheChannel(err)) await o.throttle.pushBack(o.channel, until, o.now());
        // Slack's 429 is logged; our own hold after it (every send of the method meanwhile) is not news.
        const fields = { ...o.context, channel: o.channel, retryAfterMs: c.retryAfterMs };
        if (c.held) o.logger.debug(fields, HELD);
        else o.logger.warn(fields, "Slack rate limit; waiting");
        await o.wait(until, "rate_limited");
        continue;
      }
      if (
        !editRetried &&
        o.sleepHere &&
        repeatableMoment(err, c) &&
        (await o.sleepHere(o.now() + EDIT_RETRY_MS))
      ) {
        editRetried = true;
        o.logger.debug(
          { ...o.context, channel: o.channel, code: c.code },
          "Slack edit failed for a moment; trying it again",
        );
        continue;
      }
      if (c.kind === "permanent") return o.onPermanent(c);
      if (!c.retryable && c.kind !== "rate_limited" && o.onRequestError) return o.onRequestError(c);
      throw err;
    }
  }
}
