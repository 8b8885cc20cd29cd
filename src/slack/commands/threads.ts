import {
  hasFilters,
  matchesFilters,
  normalizeFilters,
  type FilterSubject,
  type SubscriptionFilters,
} from "../../domain/filters.js";
import { DEFAULT_RANGE, RANGE_HELP, takeRange } from "../../domain/ranges.js";
import { isFlagToken, parseSubscriptionOptions } from "../../domain/subscription-options.js";
import { readKeywords, type Range, type Thread } from "../../insight/schemas.js";
import type { InsightClient } from "../../insight/client.js";
import type { Logger } from "../../log.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { MAX_STATE_GROUPS, type ThreadsState } from "../button-values.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { renderThreadList, THREADS_PAGE_SIZE, type ThreadPageResult } from "../render/thread-list.js";
import { replyForError } from "./error-replies.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

const USAGE = "threads [range] [group] [filters]";
/** With filters, the newest threads read (in pages of this size) to find the matching ones. */
export const FILTER_SCAN_PAGE = 100;
export const FILTER_SCAN_PAGES = 5;
/** Filters carried in the paging buttons must leave room for the rest of the value. */
const MAX_FILTERS_JSON = 900;

export { DEFAULT_RANGE };

/** A period that is none: what was read besides it (the group), and an example with that group. */
export function badRangeReply(word: string, rest: readonly string[] = []): string {
  const group = rest.join(" ").trim();
  const understood = group ? ` I read the group as "${escapeAndTruncate(group, 80)}".` : "";
  const example = `/insight threads 30d${group ? ` ${group}` : ""}`;
  return `\`${escapeMrkdwn(word.slice(0, 40))}\` is not a range I know.${understood} Use ${RANGE_HELP}, for example \`${escapeAndTruncate(example, 120)}\`.`;
}

export type ThreadsArgs =
  { ok: true; range: Range; groupRef: string; filters: SubscriptionFilters } | { ok: false; reply: string };

/**
 * `[range] [group] [filters]`; the range may also come after the group, and may be several
 * words ("last 30 days"). A word that looks like a period but is none is refused.
 */
export function parseThreadsArgs(args: readonly string[]): ThreadsArgs {
  const flagAt = args.findIndex(isFlagToken);
  const words = flagAt === -1 ? [...args] : args.slice(0, flagAt);
  const flags = flagAt === -1 ? [] : args.slice(flagAt);
  const taken = takeRange(words);
  if (taken.kind === "bad") return { ok: false, reply: badRangeReply(taken.words, taken.rest) };
  const parsed = parseSubscriptionOptions(flags, { filtersOnly: true });
  if (!parsed.ok) {
    const understood = parsed.understood ? `\nUnderstood so far: ${escapeMrkdwn(parsed.understood)}.` : "";
    return {
      ok: false,
      reply: `I could not read that: ${escapeMrkdwn(parsed.error)}${understood}\nExample: \`/insight threads 30d Lumen DB Support --sentiment negative --unanswered\``,
    };
  }
  const filters = normalizeFilters(parsed.change.filters);
  if (JSON.stringify(filters).length > MAX_FILTERS_JSON) {
    return { ok: false, reply: "Those filters are too long for a listing: use fewer keywords." };
  }
  return {
    ok: true,
    range: taken.kind === "range" ? taken.range : DEFAULT_RANGE,
    groupRef: (taken.kind === "range" ? taken.rest : words).join(" ").trim(),
    filters,
  };
}

/** A listing item as the filter language sees it. */
export const threadSubject = (t: Thread): FilterSubject => ({
  title: t.title,
  summary: t.summary ?? undefined,
  sentiment: t.sentiment ?? undefined,
  keywords: readKeywords(t),
  messageCount: t.messageCount,
  participantCount:
    typeof t.participantCount === "number" && Number.isFinite(t.participantCount)
      ? t.participantCount
      : undefined,
  isQuestionLed: t.isQuestionLed,
  questionResponseStatus: t.questionResponseStatus ?? undefined,
});

/** What one page of a listing reads (the command and its Previous/Next buttons). */
export interface ThreadPageDeps {
  insight: Pick<InsightClient, "listThreads">;
  logger: Logger;
  reportInsightError: ReportInsightError;
}

export interface ThreadsDeps extends ThreadPageDeps, ResolveGroupDeps {
  insight: ThreadPageDeps["insight"] & ResolveGroupDeps["insight"];
  subscriptions: Pick<SubscriptionStore, "forChannel">;
}

/**
 * One page of the listing's current group; failures become the reply's words. With filters,
 * the newest threads of the range are read (up to FILTER_SCAN_PAGES pages) and the matching
 * ones paginated here, so every page and its counts are about the same matching set.
 */
export async function loadThreadPage(deps: ThreadPageDeps, state: ThreadsState): Promise<ThreadPageResult> {
  const current = state.g[state.i];
  if (!current) return { ok: false, error: "This listing has no group." };
  const [groupId, name] = current;
  try {
    if (state.f && hasFilters(state.f)) return await loadFilteredPage(deps, groupId, state, state.f);
    const page = await deps.insight.listThreads(groupId, {
      range: state.r,
      page: state.p,
      limit: THREADS_PAGE_SIZE,
      sort: "desc",
    });
    return { ok: true, threads: page.data, pagination: page.pagination };
  } catch (err) {
    deps.logger.warn({ groupId, page: state.p, err }, "threads: listing failed");
    await deps.reportInsightError(err);
    return { ok: false, error: replyForError(err, `the chat group "${escapeMrkdwn(name || groupId)}"`) };
  }
}

async function loadFilteredPage(
  deps: ThreadPageDeps,
  groupId: string,
  state: ThreadsState,
  filters: SubscriptionFilters,
): Promise<ThreadPageResult> {
  const matching: Thread[] = [];
  let read = 0;
  let complete = false;
  for (let page = 1; page <= FILTER_SCAN_PAGES; page++) {
    const res = await deps.insight.listThreads(groupId, {
      range: state.r,
      page,
      limit: FILTER_SCAN_PAGE,
      sort: "desc",
    });
    read += res.data.length;
    matching.push(...res.data.filter((t) => matchesFilters(threadSubject(t), filters)));
    const last = res.pagination ? page >= res.pagination.totalPages : res.data.length < FILTER_SCAN_PAGE;
    if (last || res.data.length === 0) {
      complete = true;
      break;
    }
  }
  const totalPages = Math.max(1, Math.ceil(matching.length / THREADS_PAGE_SIZE));
  return {
    ok: true,
    threads: matching.slice((state.p - 1) * THREADS_PAGE_SIZE, state.p * THREADS_PAGE_SIZE),
    pagination: { page: state.p, limit: THREADS_PAGE_SIZE, total: matching.length, totalPages },
    filtered: { read, complete },
  };
}

export function threadsCommand(deps: ThreadsDeps): Subcommand {
  return {
    name: "threads",
    usage: USAGE,
    summary: `threads of a chat group, or of each group this channel follows, a page at a time. Ranges: ${RANGE_HELP}; filters: the options of \`subscribe\` (\`--sentiment\`, \`--exclude-keywords\`, \`--unanswered\`…)`,
    mutates: false,
    async run(ctx) {
      const parsed = parseThreadsArgs(ctx.args);
      if (!parsed.ok) {
        await ctx.respond({ text: parsed.reply });
        return;
      }
      let groups: [string, string][];
      let note = "";
      if (parsed.groupRef) {
        const group = await resolveGroupOrReply(deps, ctx, parsed.groupRef);
        if (!group) return;
        groups = [[group.id, group.name]];
      } else {
        const subs = await deps.subscriptions.forChannel(ctx.channelId);
        if (subs.length === 0) {
          await ctx.respond({
            text: `This channel follows no chat group. Name one: \`/insight ${escapeMrkdwn(USAGE.replace("[group]", "<group>"))}\` (see \`/insight groups\`).`,
          });
          return;
        }
        groups = subs.map((s) => [s.groupId, s.groupName]);
        if (groups.length > MAX_STATE_GROUPS)
          note = ` (the first ${MAX_STATE_GROUPS} of ${groups.length} followed groups)`;
      }
      const state: ThreadsState = {
        r: parsed.range,
        ...(hasFilters(parsed.filters) ? { f: parsed.filters } : {}),
        p: 1,
        i: 0,
        g: groups.slice(0, MAX_STATE_GROUPS),
      };
      const result = await loadThreadPage(deps, state);
      const rendered = renderThreadList({ state, groupName: groups[0]?.[1], result });
      await ctx.respond({ text: rendered.text + note, blocks: rendered.blocks });
    },
  };
}
