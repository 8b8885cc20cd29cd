import { ELLIPSIS, plainText, truncateMrkdwn } from "../mrkdwn.js";
import { jsonCopy } from "./json-copy.js";
import type { KnownBlock } from "./known-blocks.js";

/**
 * Block Kit limits for messages (docs.slack.dev/reference/block-kit: blocks, header, section,
 * context, button, text object). Counted in UTF-16 units, which never undercounts.
 */
export const LIMITS = {
  /** Blocks in one message (modals and Home tabs allow 100). */
  blocksPerMessage: 50,
  /** A section's `text`; also the maximum of any text object. */
  sectionText: 3000,
  /** Each of a section's `fields`. */
  sectionFieldText: 2000,
  sectionFields: 10,
  /** A header's plain_text. */
  headerText: 150,
  /** Elements of a context block. */
  contextElements: 10,
  /** A context text element: the text object allows 3000; 2000 leaves room in the whole-message budget. */
  contextText: 2000,
  /** A button's label, its `value`, `action_id` and any `block_id`. */
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  /** Elements of an actions block. */
  actionsElements: 25,
  /** The top-level `text` (Slack truncates beyond this; our fallbacks stay far shorter). */
  messageText: 40_000,
  /**
   * JSON.stringify(blocks).length budget for a whole message. Slack answers
   * `msg_blocks_too_long` from about 13,000 characters (lower with more blocks:
   * slackapi/bolt-js#2509), below every documented per-block limit.
   */
  messageBlocksJson: 12_000,
} as const;

export interface BlockBudget {
  /** Default LIMITS.blocksPerMessage. */
  maxBlocks?: number;
  /** Default LIMITS.messageBlocksJson. */
  maxJson?: number;
  /** The context line that replaces dropped blocks; default "…and more". */
  moreText?: string;
}

/** A text slot below which trimming stops and dropping blocks starts. */
const MIN_TRIMMED_TEXT = 200;

type TextObj = { type: "plain_text" | "mrkdwn"; text: string };

const isTextObj = (v: unknown): v is TextObj =>
  typeof v === "object" &&
  v !== null &&
  "text" in v &&
  typeof v.text === "string" &&
  "type" in v &&
  (v.type === "plain_text" || v.type === "mrkdwn");

function cut(t: TextObj, max: number): void {
  if (t.text.length <= max) return;
  // Our plain texts are already neutralised (idempotent); mrkdwn is already escaped.
  t.text = t.type === "plain_text" ? plainText(t.text, max) : truncateMrkdwn(t.text, max);
}

/** Every text object of a block that trimming may shorten. */
function textSlots(block: KnownBlock): TextObj[] {
  const slots: TextObj[] = [];
  const add = (v: unknown) => {
    if (isTextObj(v)) slots.push(v);
  };
  switch (block.type) {
    case "header":
      add(block.text);
      break;
    case "section":
      add(block.text);
      for (const f of block.fields ?? []) add(f);
      break;
    case "context":
      for (const e of block.elements) add(e);
      break;
    default:
      break;
  }
  return slots;
}

/** Enforces the per-block limits on one (already cloned) block. */
function clampBlock(block: KnownBlock): void {
  if (block.block_id !== undefined && block.block_id.length > LIMITS.blockId) {
    block.block_id = block.block_id.slice(0, LIMITS.blockId);
  }
  switch (block.type) {
    case "header":
      cut(block.text, LIMITS.headerText);
      break;
    case "section":
      if (block.text && isTextObj(block.text)) cut(block.text, LIMITS.sectionText);
      if (block.fields) {
        block.fields = block.fields.slice(0, LIMITS.sectionFields);
        for (const f of block.fields) cut(f, LIMITS.sectionFieldText);
      }
      break;
    case "context":
      block.elements = block.elements.slice(0, LIMITS.contextElements);
      for (const e of block.elements) if (isTextObj(e)) cut(e, LIMITS.contextText);
      break;
    case "actions":
      block.elements = block.elements.slice(0, LIMITS.actionsElements);
      for (const e of block.elements) {
        if (e.type === "button") cut(e.text, LIMITS.buttonText);
      }
      break;
    default:
      break;
  }
}

export const moreContext = (text: string): KnownBlock => ({
  type: "context",
  elements: [{ type: "mrkdwn", text }],
});

const jsonLength = (blocks: KnownBlock[]) => JSON.stringify(blocks).length;

/**
 * Makes blocks postable: per-block limits, at most `maxBlocks` blocks, and at most
 * `maxJson` characters of JSON. Over budget, the longest texts are trimmed first (down to
 * a floor); if that is not enough, trailing blocks are dropped and a final "…and more"
 * context says so. The first block (the header) is always kept. The input is not changed.
 */
export function fitBlocks(blocks: readonly KnownBlock[], budget: BlockBudget = {}): KnownBlock[] {
  const maxBlocks = Math.max(2, budget.maxBlocks ?? LIMITS.blocksPerMessage);
  const maxJson = budget.maxJson ?? LIMITS.messageBlocksJson;
  const more = moreContext(budget.moreText ?? `${ELLIPSIS}and more`);

  let out: KnownBlock[] = jsonCopy([...blocks]);
  for (const b of out) clampBlock(b);
  if (out.length > maxBlocks) out = [...out.slice(0, maxBlocks - 1), more];

  let size = jsonLength(out);
  // Trim the longest text first; each round either fits or brings one slot to the floor.
  while (size > maxJson) {
    const longest = out
      .flatMap(textSlots)
      .filter((t) => t.text.length > MIN_TRIMMED_TEXT)
      .sort((a, b) => b.text.length - a.text.length)[0];
    if (!longest) break;
    cut(longest, Math.max(MIN_TRIMMED_TEXT, longest.text.length - (size - maxJson) - 8));
    size = jsonLength(out);
  }

  // Still too big: drop trailing blocks behind a "…and more" line.
  if (size > maxJson) {
    const hasMore = out.at(-1) === more;
    let kept = hasMore ? out.slice(0, -1) : out;
    while (kept.length > 1 && jsonLength([...kept, more]) > maxJson) kept = kept.slice(0, -1);
    out = [...kept, more];
  }
  return out;
}

export interface FitListInput {
  /** Always shown first (a header, an intro). */
  head: KnownBlock[];
  /** One entry per item (a thread, a search hit); each is kept whole or left out. */
  items: KnownBlock[][];
  /** Always shown last (pagination buttons, a footer). */
  tail?: KnownBlock[];
  /** The line shown when items were left out; default "…and N more". Escape untrusted parts. */
  more?: (hidden: number) => string;
  budget?: Omit<BlockBudget, "moreText">;
}

export interface FitListResult {
  blocks: KnownBlock[];
  /** How many items were shown, in order from the first. */
  shown: number;
  hidden: number;
}

/**
 * For listings (threads, search results, weekly summaries): as many whole items as fit
 * under the block and JSON budgets between `head` and `tail`, then "…and N more".
 */
export function fitList(input: FitListInput): FitListResult {
  const maxBlocks = input.budget?.maxBlocks ?? LIMITS.blocksPerMessage;
  const maxJson = input.budget?.maxJson ?? LIMITS.messageBlocksJson;
  const tail = input.tail ?? [];
  const moreLine = (hidden: number) =>
    moreContext(input.more ? input.more(hidden) : `${ELLIPSIS}and ${hidden} more`);

  const body: KnownBlock[] = [];
  let shown = 0;
  for (const item of input.items) {
    const hiddenAfter = input.items.length - shown - 1;
    const candidate = [
      ...input.head,
      ...body,
      ...item,
      ...(hiddenAfter > 0 ? [moreLine(hiddenAfter)] : []),
      ...tail,
    ];
    if (candidate.length > maxBlocks || jsonLength(candidate) > maxJson) break;
    body.push(...item);
    shown++;
  }
  const hidden = input.items.length - shown;
  const blocks = [...input.head, ...body, ...(hidden > 0 ? [moreLine(hidden)] : []), ...tail];
  // Head and tail alone may still be too big (or no item fitted): the generic fit decides.
  return { blocks: fitBlocks(blocks, { maxBlocks, maxJson }), shown, hidden };
}
