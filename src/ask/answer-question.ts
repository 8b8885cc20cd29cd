import pLimit from "p-limit";
import { matchesFilters, type SubscriptionFilters } from "../domain/filters.js";
import { questionStatusLabel, sentimentLabel } from "../domain/sentiment.js";
import { emptyTones } from "../domain/weekly-stats.js";
import { timeOf } from "../domain/weekly-window.js";
import { isInsightError } from "../insight/errors.js";
import type { Thread } from "../insight/schemas.js";
import type { Logger } from "../log.js";
import type { ReportInsightError } from "../ops/report-insight-error.js";
import { replyForError } from "../slack/commands/error-replies.js";
import { threadSubject } from "../slack/commands/threads.js";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import type { CommunityReader, GroupThreads, TopicThreads } from "./community-reader.js";
import type { AnswerThread, AskAnswer, AskGroup, AskQuestion, PeriodFigures } from "./types.js";

/*
 * The figures of a question, computed from the service's listings and search only: the threads
 * whose last activity falls in the period (and in the period before, for the change), narrowed
 * by the topic's search hits, the feeling and the question filters the grammar already has
 * (domain/filters.ts). Nothing else is said: no generated prose, only counts and the service's
 * own summaries, which the renderer quotes as such.
 */

/** The plain answer to a 429 or an outage (a person is waiting: no retry loop, no stack). */
export const NOT_ANSWERING = "The community service is not answering, try again in a minute.";
/** Groups one answer reads at most (a workspace may follow many). */
export const MAX_GROUPS_PER_ANSWER = 12;
const GROUPS_AT_ONCE = 4;

export interface AnswerDeps {
  reader: Pick<CommunityReader, "threadsSince" | "topicThreads">;
  reportInsightError: ReportInsightError;
  logger: Logger;
}

export type AnswerOutcome = { ok: true; answer: AskAnswer } | { ok: false; reply: string };

const OUTAGE_CODES = new Set(["rate_limited", "server_error", "timeout", "network"]);

/** A failure that means "the service is not answering now" (429, 5xx, no answer in time). */
export function isOutage(err: unknown): boolean {
  if (isInsightError(err)) return OUTAGE_CODES.has(err.code);
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

const emptyFigures = (): PeriodFigures => ({
  threads: 0,
  messages: 0,
  withoutCount: 0,
  tones: emptyTones(),
  unanswered: 0,
});

function add(f: PeriodFigures, t: Thread): void {
  f.threads++;
  if (t.messageCount === undefined) f.withoutCount++;
  else f.messages += t.messageCount;
  f.tones[sentimentLabel(t.sentiment).tone]++;
  if (t.isQuestionLed === true && questionStatusLabel(t.questionResponseStatus).status !== "answered") {
    f.unanswered++;
  }
}

/** The question's filters in the grammar every command shares (rule 13). */
export function filtersOf(
  q: Pick<AskQuestion, "tone" | "unanswered" | "questionsOnly">,
): SubscriptionFilters {
  return {
    ...(q.tone ? { sentiments: [q.tone] } : {}),
    ...(q.unanswered ? { unanswered: true } : {}),
    ...(q.questionsOnly && !q.unanswered ? { questions: true } : {}),
  };
}

interface GroupRead {
  group: AskGroup;
  listing: GroupThreads;
  topic: TopicThreads | undefined;
}

type GroupOutcome = { ok: true; read: GroupRead } | { ok: false; group: AskGroup; err: unknown };

/** The order cards are shown in: the search's relevance, else waiting longest, else busiest. */
function ordering(q: AskQuestion, rank: Map<string, number>) {
  const last = (a: AnswerThread) => timeOf(a.thread.lastMessageDate);
  const messages = (a: AnswerThread) => a.thread.messageCount ?? -1;
  if (q.topic) {
    return (a: AnswerThread, b: AnswerThread) =>
      (rank.get(a.thread.id) ?? Infinity) - (rank.get(b.thread.id) ?? Infinity) || messages(b) - messages(a);
  }
  if (q.unanswered)
    return (a: AnswerThread, b: AnswerThread) => last(a) - last(b) || messages(b) - messages(a);
  return (a: AnswerThread, b: AnswerThread) => messages(b) - messages(a) || last(b) - last(a);
}

/**
 * Reads every group of the question (a few at a time) and folds the figures. A 429 or an
 * outage of any group answers NOT_ANSWERING (partial counts would mislead); a group the key may
 * not read is named with the reason and the others are counted.
 */
export async function answerQuestion(deps: AnswerDeps, q: AskQuestion): Promise<AnswerOutcome> {
  const groups = q.groups.slice(0, MAX_GROUPS_PER_ANSWER);
  const limit = pLimit(GROUPS_AT_ONCE);
  const outcomes = await Promise.all(
    groups.map((group) =>
      limit(async (): Promise<GroupOutcome> => {
        try {
          const [listing, topic] = await Promise.all([
            deps.reader.threadsSince(group.id, q.range.previous.from),
            q.topic ? deps.reader.topicThreads(group.id, q.topic) : Promise.resolve(undefined),
          ]);
          return { ok: true, read: { group, listing, topic } };
        } catch (err) {
          return { ok: false, group, err };
        }
      }),
    ),
  );

  const failed = outcomes.filter((o): o is Extract<GroupOutcome, { ok: false }> => !o.ok);
  for (const f of failed) {
    deps.logger.warn({ groupId: f.group.id, err: f.err }, "ask: reading a group failed");
    await deps.reportInsightError(f.err);
  }
  if (failed.some((f) => isOutage(f.err))) return { ok: false, reply: NOT_ANSWERING };
  const unauthorized = failed.find((f) => isInsightError(f.err) && f.err.code === "unauthorized");
  if (unauthorized) return { ok: false, reply: replyForError(unauthorized.err) };
  const failures = failed.map((f) => ({
    name: f.group.name,
    reply: replyForError(f.err, `the chat group "${escapeMrkdwn(f.group.name)}"`),
  }));
  const reads = outcomes.flatMap((o) => (o.ok ? [o.read] : []));
  if (reads.length === 0) return { ok: false, reply: [...new Set(failures.map((f) => f.reply))].join("\n") };

  const filters = filtersOf(q);
  const current = emptyFigures();
  const previous = emptyFigures();
  const matching: AnswerThread[] = [];
  const rank = new Map<string, number>();
  const byGroup: { name: string; threads: number }[] = [];
  for (const { group, listing, topic } of reads) {
    const about = topic ? new Set(topic.ids) : undefined;
    topic?.ids.forEach((id, i) => {
      if (!rank.has(id)) rank.set(id, i);
    });
    let inGroup = 0;
    for (const t of listing.threads) {
      if (about && !about.has(t.id)) continue;
      if (!matchesFilters(threadSubject(t), filters)) continue;
      const last = timeOf(t.lastMessageDate);
      if (last >= q.range.from && last <= q.range.to) {
        add(current, t);
        matching.push({ groupId: group.id, groupName: group.name, thread: t });
        inGroup++;
      } else if (last >= q.range.previous.from && last <= q.range.previous.to) {
        add(previous, t);
      }
    }
    if (reads.length > 1 && inGroup > 0) byGroup.push({ name: group.name, threads: inGroup });
  }
  matching.sort(ordering(q, rank));
  byGroup.sort((a, b) => b.threads - a.threads);
  return {
    ok: true,
    answer: {
      question: { ...q, groups },
      current,
      previous,
      byGroup,
      threads: matching,
      failures,
      limits: {
        cappedGroups: reads
          .filter((r) => r.listing.capped)
          .map((r) => ({ name: r.group.name, read: r.listing.threads.length })),
        searchCapped: reads.some((r) => r.topic?.capped === true),
        groupsLeftOut: q.groups.length - groups.length,
      },
    },
  };
}
