import type { KnownBlock } from "@slack/types";
import { BlockCollection, type BlockBuilder } from "slack-block-builder";
import { jsonCopy } from "./json-copy.js";

/** Slack's block type, from @slack/types (the types package, not Bolt: renderers import no I/O module). */
export type { KnownBlock };

/**
 * Builds slack-block-builder blocks into plain `KnownBlock` objects (the library returns
 * its own DTO classes): plain data snapshots cleanly and can be trimmed without touching
 * the builders.
 */
export function toKnownBlocks(
  ...blocks: Array<BlockBuilder | BlockBuilder[] | undefined | false>
): KnownBlock[] {
  const built = BlockCollection(
    ...blocks.flatMap((b) => (b === undefined || b === false ? [] : Array.isArray(b) ? b : [b])),
  );
  // The DTOs are the Block Kit JSON shapes; copied as JSON would, they are plain objects.
  return jsonCopy(built) as KnownBlock[];
}
