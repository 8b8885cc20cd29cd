import { Blocks, Elements, Md } from "slack-block-builder";
import type { BatchSection, DigestBatch, PendingEntry } from "../../domain/digest-batch.js";
import { NOT_RATED, questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList, LIMITS } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { plural, slackDate } from "./wording.js";

export interface BatchedDigestInput {
  batch: DigestBatch;
  /** groupId -> the subscription's group name. */
  groupNames: ReadonlyMap<string, string>;
  /**
   * Start of what the digest covers, for the context line: the period's start, or the oldest
   * pending thread's arrival when that is earlier (or when there is no period: `digest now`).
   */
  sinceMs: number;
}

const TITLE_MAX = 150;
const GROUP_MAX = 80;

const SECTION_HEADINGS: Record<BatchSection, string> = {
  new: "New threads",
  changed: "Changed threads",
  // Not "handled": that word means someone here pressed Mark handled. These were answered
  // by the community, in the chat group itself.
  handled: "Answered in the chat",
};

/** The counts line's word for each section. */
const SECTION_COUNTS: Record<BatchSection, string> = {
  new: "new",
  changed: "changed",
  handled: "answered in the chat",
};

const groupOf = (e: PendingEntry, names: ReadonlyMap<string, string>) =>
  names.get(e.digest.groupId)?.trim() || e.digest.groupName.trim() || e.digest.groupId;

/** One compact line per thread: sentiment, title, question status, counts; a View button. */
function threadLine(e: PendingEntry, names: ReadonlyMap<string, string>, showGroup: boolean): KnownBlock {
  const d = e.digest;
  const title = d.title.trim() || "Untitled thread";
  const s = sentimentLabel(d.sentiment);
  const facts = [
    d.sentiment === undefined ? `${s.emoji} sentiment ${NOT_RATED}` : escapeAndTruncate(s.label, 40),
  ];
  if (d.isQuestionLed) {
    const q = questionStatusLabel(d.questionResponseStatus);
    facts.push(`${q.emoji} ${escapeAndTruncate(q.label.toLowerCase(), 40)}`);
  }
  if (d.messageCount !== undefined) facts.push(plural(d.messageCount, "message"));
  if (d.participantCount !== undefined) facts.push(plural(d.participantCount, "participant"));
  if (showGroup) facts.push(Md.italic(escapeAndTruncate(groupOf(e, names), GROUP_MAX)));
  const emoji = d.sentiment === undefined ? "" : `${s.emoji} `;
  return toKnownBlocks(
    Blocks.Section({
      text: `${emoji}${Md.bold(escapeAndTruncate(title, TITLE_MAX))}\n${facts.join(" · ")}`,
    }).accessory(
      Elements.Button({
        text: "View",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: d.groupId, t: d.threadId, n: title }),
      }),
    ),
  )[0] as KnownBlock;
}

function sectionHeading(section: BatchSection, count: number): KnownBlock {
  return toKnownBlocks(
    Blocks.Section({ text: Md.bold(`${SECTION_HEADINGS[section]} (${count})`) }),
  )[0] as KnownBlock;
}

/**
 * The batched digest of one period: a header, then the threads as compact lines grouped new /
 * changed / handled (shown as "answered in the chat"), each with a View button (the same messages modal as `threads`). Within
 * Slack's 50 blocks: whole lines are kept until the budget ends, then "…and N more threads".
 * A section heading always travels with its first thread, so none is left dangling.
 */
export function renderBatchedDigest(input: BatchedDigestInput): RenderedMessage {
  const { batch, groupNames } = input;
  const groups = new Set([...batch.new, ...batch.changed, ...batch.handled].map((e) => e.digest.groupId));
  const showGroup = groups.size > 1;
  const groupLabel = showGroup
    ? plural(groups.size, "chat group")
    : escapeAndTruncate(
        groupOf((batch.new[0] ?? batch.changed[0] ?? batch.handled[0]) as PendingEntry, groupNames),
        GROUP_MAX,
      );

  const counts = (["new", "changed", "handled"] as const)
    .filter((k) => batch[k].length > 0)
    .map((k) => `${batch[k].length} ${SECTION_COUNTS[k]}`);
  const head = toKnownBlocks(
    Blocks.Header({ text: plainText(`Digest: ${plural(batch.total, "thread")}`, LIMITS.headerText) }),
    Blocks.Context().elements(
      `${counts.join(" · ")} in ${showGroup ? groupLabel : Md.bold(groupLabel)} since ${slackDate(input.sinceMs, "{date_short_pretty} at {time}")}`,
    ),
  );

  const items: KnownBlock[][] = [];
  for (const section of ["new", "changed", "handled"] as const) {
    batch[section].forEach((e, i) => {
      const line = threadLine(e, groupNames, showGroup);
      items.push(i === 0 ? [sectionHeading(section, batch[section].length), line] : [line]);
    });
  }
  const { blocks } = fitList({
    head,
    items,
    more: (hidden) => `…and ${plural(hidden, "more thread")}. Run \`/insight threads\` to see them all.`,
  });
  const text = escapeAndTruncate(
    `Digest: ${plural(batch.total, "thread")} (${counts.join(", ")}) in ${showGroup ? groupLabel : groupOf((batch.new[0] ?? batch.changed[0] ?? batch.handled[0]) as PendingEntry, groupNames)}`,
    200,
  );
  return { text, blocks };
}
