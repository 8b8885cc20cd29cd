import { replyForError } from "../slack/commands/error-replies.js";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import { renderAskAnswer, renderAskText, ASK_CARDS_SHOWN } from "../slack/render/ask-answer.js";
import type { RenderedMessage } from "../slack/render/thread-digest.js";
import { answerQuestion, isOutage, NOT_ANSWERING, type AnswerDeps } from "./answer-question.js";
import { chooseGroups } from "./choose-groups.js";
import type { AskMemory } from "./conversation-store.js";
import type { AskDeps } from "./deps.js";
import { encodeMore } from "./more-state.js";
import type { AskQuestion } from "./types.js";
import { understandQuestion } from "./understand-question.js";

/*
 * One question, the same on every surface (an assistant thread, a mention, `/insight ask`):
 * read it in the asker's zone, choose its groups, count, render. A follow-up in the same
 * conversation keeps the groups and the period the earlier question set, unless it names others.
 */

export interface AskRequest {
  text: string;
  userId: string;
  /** Where the question's groups come from when it names none: the channel it was asked in. */
  channelId?: string | undefined;
  /** A conversation (assistant thread, mention thread) whose earlier question a follow-up keeps. */
  conversation?: { channelId: string; threadTs: string } | undefined;
}

export interface AskOutcome {
  reply: RenderedMessage;
  /** The question was read and counted (not refused, not a failure). */
  answered: boolean;
}

const plainReply = (mrkdwn: string): AskOutcome => ({ reply: renderAskText(mrkdwn), answered: false });

/** The answer's first page, or its cards from `offset` on ("Show more"). */
export async function answerPage(deps: AnswerDeps, q: AskQuestion, offset: number): Promise<AskOutcome> {
  const outcome = await answerQuestion(deps, q);
  if (!outcome.ok) return plainReply(outcome.reply);
  const next = offset + ASK_CARDS_SHOWN;
  const moreValue =
    outcome.answer.threads.length > next ? encodeMore(outcome.answer.question, next) : undefined;
  return { reply: renderAskAnswer({ answer: outcome.answer, offset, moreValue }), answered: true };
}

export async function askQuestion(deps: AskDeps, req: AskRequest): Promise<AskOutcome> {
  const conv = req.conversation;
  const [timeZone, memory] = await Promise.all([
    deps.timeZones.of(req.userId),
    conv ? deps.conversations.memory(conv.channelId, conv.threadTs) : Promise.resolve(undefined),
  ]);
  const reading = understandQuestion(req.text, {
    now: deps.now(),
    timeZone,
    keptRangeWords: memory?.rangeWords,
  });
  if (!reading.ok) return plainReply(escapeMrkdwn(reading.reply));
  const u = reading.understood;

  let choice;
  try {
    choice = await chooseGroups(deps, u, { memory, channelId: req.channelId });
  } catch (err) {
    deps.logger.warn({ err }, "ask: finding the groups failed");
    await deps.reportInsightError(err);
    return plainReply(isOutage(err) ? NOT_ANSWERING : replyForError(err));
  }
  if (!choice.ok) return plainReply(choice.reply);

  const question: AskQuestion = {
    groups: choice.groups,
    scope: choice.scope,
    ...(choice.channelId ? { scopeChannelId: choice.channelId } : {}),
    range: u.range,
    ...(u.tone ? { tone: u.tone } : {}),
    unanswered: u.unanswered,
    questionsOnly: u.questionsOnly,
    ...(choice.topic ? { topic: choice.topic } : {}),
  };
  const outcome = await answerPage(deps, question, 0);
  if (conv && outcome.answered) {
    // What a follow-up keeps: a group this question named (or kept), and a period it said (or kept).
    const keep: AskMemory = {
      ...(choice.scope === "named" || choice.scope === "kept" ? { groups: choice.groups } : {}),
      ...(u.rangeSource !== "default" ? { rangeWords: u.range.words } : {}),
    };
    await deps.conversations.remember(conv.channelId, conv.threadTs, keep).catch((err: unknown) => {
      deps.logger.warn({ err }, "ask: the conversation could not be remembered");
    });
  }
  return outcome;
}
