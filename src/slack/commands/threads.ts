import { RANGES, type Range } from "../../insight/schemas.js";
import type { InsightClient } from "../../insight/client.js";
import type { Logger } from "../../log.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { MAX_STATE_GROUPS, type ThreadsState } from "../button-values.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { renderThreadList, THREADS_PAGE_SIZE, type ThreadPageResult } from "../render/thread-list.js";
import { replyForError } from "./error-replies.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

export const DEFAULT_RANGE: Range = "last7Days";
const USAGE = "threads [range] [group]";

/** What one page of a listing reads (the command and its Previous/Next buttons). */
export interface ThreadPageDeps {
  insight: Pick<InsightClient, "listThreads">;
  logger: Logger;
  reportInsightError: ReportInsightError;
}

export interface ThreadsDeps extends ThreadPageDeps, ResolveGroupDeps {
  insight: ThreadPageDeps["insight"] & ResolveGroupDeps["insight"];
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  now?: () => Date;
}

/** Words people type meaning a period ("last2Weeks", "past30days", "7d", "thisMonth"). */
const RANGE_LIKE =
  /^(?:(?:last|past|this|all)[-_]?\d*[-_]?(?:days?|weeks?|months?|years?|time)|\d+\s*(?:d|w|m|y|days?|weeks?|months?|years?))$/i;

export const rangeList = () => RANGES.map((r) => `\`${r}\``).join(", ");

export function badRangeReply(word: string): string {
  return `\`${escapeMrkdwn(word.slice(0, 40))}\` is not a range. Use one of: ${rangeList()}.`;
}

/** A range as typed, case-insensitively, or undefined. */
export function parseRange(word: string | undefined): Range | undefined {
  if (!word) return undefined;
  const lower = word.toLowerCase();
  return RANGES.find((r) => r.toLowerCase() === lower);
}

export type ThreadsArgs = { ok: true; range: Range; groupRef: string } | { ok: false; reply: string };

/** `[range] [group]`; a range may also come last. A word that looks like a period but is none is refused. */
export function parseThreadsArgs(args: readonly string[]): ThreadsArgs {
  const words = [...args];
  let range: Range | undefined = parseRange(words[0]);
  if (range) words.shift();
  else if (words[0] !== undefined && RANGE_LIKE.test(words[0]))
    return { ok: false, reply: badRangeReply(words[0]) };
  if (!range && words.length > 1) {
    const last = parseRange(words.at(-1));
    if (last) {
      range = last;
      words.pop();
    }
  }
  return { ok: true, range: range ?? DEFAULT_RANGE, groupRef: words.join(" ").trim() };
}

/** One page of the listing's current group; failures become the reply's words. */
export async function loadThreadPage(deps: ThreadPageDeps, state: ThreadsState): Promise<ThreadPageResult> {
  const current = state.g[state.i];
  if (!current) return { ok: false, error: "This listing has no group." };
  const [groupId, name] = current;
  try {
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

export function threadsCommand(deps: ThreadsDeps): Subcommand {
  const now = deps.now ?? (() => new Date());
  return {
    name: "threads",
    usage: USAGE,
    summary: `one page of threads of a chat group, or of each group this channel follows (range default \`${DEFAULT_RANGE}\`)`,
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
            text: `This channel follows no chat group. Name one: \`/insight ${USAGE.replace("[group]", "<group>")}\` (see \`/insight groups\`).`,
          });
          return;
        }
        groups = subs.map((s) => [s.groupId, s.groupName]);
        if (groups.length > MAX_STATE_GROUPS)
          note = ` (the first ${MAX_STATE_GROUPS} of ${groups.length} followed groups)`;
      }
      const state: ThreadsState = { r: parsed.range, p: 1, i: 0, g: groups.slice(0, MAX_STATE_GROUPS) };
      const result = await loadThreadPage(deps, state);
      const rendered = renderThreadList({ state, groupName: groups[0]?.[1], result, now: now() });
      await ctx.respond({ text: rendered.text + note, blocks: rendered.blocks });
    },
  };
}
