import type { SlackJob, SlackJobKind } from "../job-types.js";
import type { RefusedWhat } from "../refused-by-slack.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";

/**
 * What a handler's `prepare` answers: the outcome already (nothing to send), or the send to make
 * in the channel's turn, with the Slack method it calls when that is known before it (a card's
 * edit: `chat.update`), so that a hold of that method is waited out first (send-in-turn.ts).
 */
export type Prepared = { done: SlackOutcome } | { send: () => Promise<SlackOutcome>; method?: string };

/**
 * One kind of Slack job. `prepare` runs before the channel's turn and reads what the send needs
 * (a card edit that changes nothing sends nothing and takes no turn); the send it returns runs in
 * the turn (slack/outbound/send-in-turn.ts), inside the one outbound policy of process-slack-job.ts.
 */
export interface SlackJobHandler<K extends SlackJobKind> {
  /** What Slack refusing this kind for good means (refused-by-slack.ts). */
  refused: RefusedWhat;
  prepare(attempt: SlackAttempt<Extract<SlackJob, { kind: K }>>, deps: SlackJobDeps): Promise<Prepared>;
}

/**
 * A handler from its two steps (each module's own `prepare` and `send`, typed with the `Pick` of
 * the deps it uses): `prepare` answers the send's input, or an outcome when there is nothing to send.
 */
export function twoSteps<K extends SlackJobKind, P extends object>(o: {
  refused: RefusedWhat;
  prepare(
    attempt: SlackAttempt<Extract<SlackJob, { kind: K }>>,
    deps: SlackJobDeps,
  ): Promise<P | SlackOutcome>;
  send(
    attempt: SlackAttempt<Extract<SlackJob, { kind: K }>>,
    deps: SlackJobDeps,
    prepared: P,
  ): Promise<SlackOutcome>;
  /** The Slack method the send will call, when the prepared input tells (see `Prepared`). */
  method?(prepared: P): string | undefined;
}): SlackJobHandler<K> {
  return {
    refused: o.refused,
    prepare: async (attempt, deps) => {
      const p = await o.prepare(attempt, deps);
      if (typeof p === "string") return { done: p };
      const method = o.method?.(p);
      return { send: () => o.send(attempt, deps, p), ...(method ? { method } : {}) };
    },
  };
}
