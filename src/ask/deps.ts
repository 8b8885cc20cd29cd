import type { DepsOf } from "../feature.js";
import type { Logger } from "../log.js";
import type { ReportInsightError } from "../ops/report-insight-error.js";
import type { SlackApi } from "../slack/client.js";
import type { UserTimeZones } from "../slack/user-time-zone.js";
import type { ChooseGroupsDeps } from "./choose-groups.js";
import type { CommunityReader } from "./community-reader.js";
import type { ConversationStore } from "./conversation-store.js";

/**
 * What asking the community uses, for one workspace (rule 12): its Insight connection (through
 * a reader that bounds and shares what it fetches), its subscriptions, its conversations in
 * Redis, the askers' time zones and its Slack token.
 */
export interface AskDeps extends ChooseGroupsDeps {
  reader: Pick<CommunityReader, "threadsSince" | "topicThreads">;
  conversations: Pick<
    ConversationStore,
    "context" | "saveContext" | "memory" | "remember" | "firstQuestion" | "take"
  >;
  timeZones: UserTimeZones;
  /** Assistant methods (setStatus, setSuggestedPrompts, setTitle) go through `call`. */
  slack: Pick<SlackApi, "call" | "postMessage">;
  reportInsightError: ReportInsightError;
  logger: Logger;
  now: () => number;
}

/** A request's workspace's deps (resolved by the root from Bolt's context). */
export type AskDepsOf = DepsOf<AskDeps>;
