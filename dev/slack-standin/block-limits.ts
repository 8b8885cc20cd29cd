/**
 * The Block Kit limits Slack enforces on messages, checked the way Slack answers them
 * (error code plus `[ERROR] ... [json-pointer:...]` messages), so that the app's own
 * truncation is tested against a server that really rejects oversized payloads.
 */

export const MAX_MESSAGE_BLOCKS = 50;
/** Slack answers msg_blocks_too_long somewhere above ~13,000 characters of block JSON. */
export const MAX_BLOCKS_JSON_CHARS = 13_000;
/** chat.postMessage rejects longer `text` with msg_too_long. */
export const MAX_MESSAGE_TEXT_CHARS = 40_000;

const LIMITS = {
  blockId: 255,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  actionId: 255,
  imageAltText: 2000,
  markdownText: 12_000,
} as const;

export type BlocksVerdict =
  { ok: true; blocks: unknown[] | undefined } | { ok: false; error: string; messages: string[] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Accepts `blocks` as an array or as the JSON string form bodies carry. */
export function parseBlocksArg(raw: unknown): BlocksVerdict {
  if (raw === undefined || raw === null || raw === "") return { ok: true, blocks: undefined };
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, error: "invalid_blocks_format", messages: ["[ERROR] blocks is not valid JSON"] };
    }
  }
  if (!Array.isArray(value)) {
    return { ok: false, error: "invalid_blocks_format", messages: ["[ERROR] blocks must be an array"] };
  }
  return { ok: true, blocks: value };
}

/** Checks a message's blocks against Slack's limits; `undefined` blocks are fine. */
export function checkMessageBlocks(blocks: unknown[] | undefined): BlocksVerdict {
  if (blocks === undefined) return { ok: true, blocks };
  if (blocks.length > MAX_MESSAGE_BLOCKS) {
    return {
      ok: false,
      error: "invalid_blocks",
      messages: [`[ERROR] no more than ${MAX_MESSAGE_BLOCKS} items allowed [json-pointer:/blocks]`],
    };
  }
  if (JSON.stringify(blocks).length > MAX_BLOCKS_JSON_CHARS) {
    return { ok: false, error: "msg_blocks_too_long", messages: [] };
  }
  const messages: string[] = [];
  blocks.forEach((block, i) => checkBlock(block, `/blocks/${i}`, messages));
  return messages.length ? { ok: false, error: "invalid_blocks", messages } : { ok: true, blocks };
}

function tooLong(max: number, pointer: string): string {
  return `[ERROR] must be less than ${max + 1} characters [json-pointer:${pointer}]`;
}

function checkTextObject(
  t: unknown,
  pointer: string,
  max: number,
  out: string[],
  opts: { plainOnly?: boolean } = {},
): void {
  if (!isObj(t) || typeof t.text !== "string" || (t.type !== "plain_text" && t.type !== "mrkdwn")) {
    out.push(`[ERROR] must provide a text object [json-pointer:${pointer}]`);
    return;
  }
  if (opts.plainOnly && t.type !== "plain_text") {
    out.push(`[ERROR] must be a plain_text object [json-pointer:${pointer}/type]`);
  }
  if (t.text.length === 0) out.push(`[ERROR] must be more than 0 characters [json-pointer:${pointer}/text]`);
  if (t.text.length > max) out.push(tooLong(max, `${pointer}/text`));
}

function checkMaxString(v: unknown, max: number, pointer: string, out: string[]): void {
  if (typeof v === "string" && v.length > max) out.push(tooLong(max, pointer));
}

function checkElement(el: unknown, pointer: string, out: string[]): void {
  if (!isObj(el)) {
    out.push(`[ERROR] must be an object [json-pointer:${pointer}]`);
    return;
  }
  checkMaxString(el.action_id, LIMITS.actionId, `${pointer}/action_id`, out);
  if (el.type === "button") {
    checkTextObject(el.text, `${pointer}/text`, LIMITS.buttonText, out, { plainOnly: true });
    checkMaxString(el.value, LIMITS.buttonValue, `${pointer}/value`, out);
    checkMaxString(el.url, LIMITS.url, `${pointer}/url`, out);
  }
}

function checkBlock(block: unknown, pointer: string, out: string[]): void {
  if (!isObj(block) || typeof block.type !== "string") {
    out.push(`[ERROR] missing required field: type [json-pointer:${pointer}]`);
    return;
  }
  checkMaxString(block.block_id, LIMITS.blockId, `${pointer}/block_id`, out);
  switch (block.type) {
    case "header":
      checkTextObject(block.text, `${pointer}/text`, LIMITS.headerText, out, { plainOnly: true });
      break;
    case "section": {
      if (block.text === undefined && block.fields === undefined) {
        out.push(`[ERROR] must provide either text or fields [json-pointer:${pointer}]`);
      }
      if (block.text !== undefined) checkTextObject(block.text, `${pointer}/text`, LIMITS.sectionText, out);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields))
          out.push(`[ERROR] must be an array [json-pointer:${pointer}/fields]`);
        else {
          if (block.fields.length > LIMITS.sectionFields) {
            out.push(
              `[ERROR] no more than ${LIMITS.sectionFields} items allowed [json-pointer:${pointer}/fields]`,
            );
          }
          block.fields.forEach((f, j) =>
            checkTextObject(f, `${pointer}/fields/${j}`, LIMITS.sectionFieldText, out),
          );
        }
      }
      if (block.accessory !== undefined) checkElement(block.accessory, `${pointer}/accessory`, out);
      break;
    }
    case "context":
      if (!Array.isArray(block.elements) || block.elements.length === 0) {
        out.push(`[ERROR] must provide elements [json-pointer:${pointer}/elements]`);
      } else if (block.elements.length > LIMITS.contextElements) {
        out.push(
          `[ERROR] no more than ${LIMITS.contextElements} items allowed [json-pointer:${pointer}/elements]`,
        );
      }
      break;
    case "actions":
      if (!Array.isArray(block.elements) || block.elements.length === 0) {
        out.push(`[ERROR] must provide elements [json-pointer:${pointer}/elements]`);
      } else {
        if (block.elements.length > LIMITS.actionsElements) {
          out.push(
            `[ERROR] no more than ${LIMITS.actionsElements} items allowed [json-pointer:${pointer}/elements]`,
          );
        }
        block.elements.forEach((el, j) => checkElement(el, `${pointer}/elements/${j}`, out));
      }
      break;
    case "image":
      checkMaxString(block.alt_text, LIMITS.imageAltText, `${pointer}/alt_text`, out);
      checkMaxString(block.image_url, LIMITS.url, `${pointer}/image_url`, out);
      break;
    case "markdown":
      checkMaxString(block.text, LIMITS.markdownText, `${pointer}/text`, out);
      break;
    default:
      // divider, rich_text and newer types pass: the stand-in checks what the app can overflow.
      break;
  }
}
