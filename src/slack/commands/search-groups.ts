import type { InsightClient } from "../../insight/client.js";
import type { SearchMessageHit, SearchThreadHit } from "../../insight/schemas.js";
import type { Logger } from "../../log.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import type { GroupedMessageHit, GroupedThreadHit } from "../render/search-results.js";
import { replyForError } from "./error-replies.js";

/** Hits asked of each group; the reply shows the best few of all groups together. */
export const SEARCH_LIMIT_PER_GROUP = 10;

export interface SearchGroupsDeps {
  insight: Pick<InsightClient, "search">;
  logger: Logger;
  reportInsightError: ReportInsightError;
}

/** What one search across several groups found: hits best first, and the groups that failed. */
export interface GroupsSearch {
  threads: (GroupedThreadHit & { groupId: string })[];
  messages: (GroupedMessageHit & { groupId: string })[];
  /** Groups whose search failed, with the reason in plain words. */
  failures: { name: string; reply: string }[];
  /** Every group failed. */
  allFailed: boolean;
}

/** Best first; hits without a score keep the service's order, after scored ones. */
function byScore<T extends { score: number | undefined }>(hits: T[]): T[] {
  return hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => (b.h.score ?? -Infinity) - (a.h.score ?? -Infinity) || a.i - b.i)
    .map(({ h }) => h);
}

/**
 * The same semantic search in each group at once (`search`, the shortcuts): a group that fails
 * is named with its reason, the others' hits are merged, best first.
 */
export async function searchGroups(
  deps: SearchGroupsDeps,
  groups: readonly { id: string; name: string }[],
  text: string,
): Promise<GroupsSearch> {
  const outcomes = await Promise.all(
    groups.map(async (g) => {
      try {
        const r = await deps.insight.search(g.id, text, { limit: SEARCH_LIMIT_PER_GROUP });
        return { g, ok: true as const, threads: r.threads, messages: r.messages };
      } catch (err) {
        deps.logger.warn({ groupId: g.id, err }, "search failed");
        await deps.reportInsightError(err);
        return {
          g,
          ok: false as const,
          reply: replyForError(err, `the chat group "${escapeMrkdwn(g.name)}"`),
        };
      }
    }),
  );
  const failures = outcomes.flatMap((o) => (o.ok ? [] : [{ name: o.g.name, reply: o.reply }]));
  const withGroup = <T extends SearchThreadHit | SearchMessageHit>(
    hits: T[],
    g: { id: string; name: string },
  ) => hits.map((h) => ({ ...h, groupName: g.name, groupId: g.id }));
  return {
    threads: byScore(outcomes.flatMap((o) => (o.ok ? withGroup(o.threads, o.g) : []))),
    messages: byScore(outcomes.flatMap((o) => (o.ok ? withGroup(o.messages, o.g) : []))),
    failures,
    allFailed: outcomes.length > 0 && failures.length === outcomes.length,
  };
}
