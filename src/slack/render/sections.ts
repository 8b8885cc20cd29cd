import { Blocks } from "slack-block-builder";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { LIMITS } from "./limits.js";

/** Lines joined into as few sections as fit, each within Slack's section text limit. */
export function linesToSections(lines: readonly string[]): KnownBlock[] {
  const out: string[] = [];
  for (const line of lines) {
    const last = out.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= LIMITS.sectionText)
      out[out.length - 1] = `${last}\n${line}`;
    else out.push(line);
  }
  return out.flatMap((text) => toKnownBlocks(Blocks.Section({ text })));
}
