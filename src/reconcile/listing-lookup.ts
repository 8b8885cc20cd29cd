import type { InsightClient } from "../insight/client.js";
import type { Thread } from "../insight/schemas.js";
import { ThreadLookup } from "../jobs/thread-lookup.js";

/**
 * The thread lookup of the digest path, answered from the page the reconciler has just read,
 * so routing a reconciled thread costs no second listing request. A thread not on that page
 * falls back to the ordinary lookup.
 */
export class ListingLookup extends ThreadLookup {
  constructor(
    client: Pick<InsightClient, "listThreads">,
    private readonly listed: ReadonlyMap<string, Thread>,
  ) {
    super(client);
  }

  override async find(
    groupId: string,
    threadId: string,
    opts: { fresh?: boolean; notBeforeMs?: number } = {},
  ): Promise<Thread | undefined> {
    return this.listed.get(threadId) ?? super.find(groupId, threadId, opts);
  }
}
