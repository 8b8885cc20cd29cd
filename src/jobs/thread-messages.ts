import type { InsightClient } from "../insight/client.js";
import { isLastPage } from "../insight/paginate.js";
import type { Message } from "../insight/schemas.js";

/** A thread's counts from its message listing. */
export interface ThreadCounts {
  messageCount: number | undefined;
  participantCount: number | undefined;
}

/** Who wrote a message, as the message listing marks it (the webhook does not). */
export type MessageKind = "person" | "bot" | "system";

const PAGE_SIZE = 100;
/** Newest pages read at most for one question: a batch of new messages is on the first. */
const MAX_PAGES = 3;
/** A reading answers the questions asked within this long (the channels of one thread ask together). */
const CACHE_MS = 2_000;
const MAX_THREADS = 200;

interface Reading {
  fetchedAt: number;
  kinds: Map<string, MessageKind>;
  authors: Set<string>;
  pagesRead: number;
  exhausted: boolean;
  total: number | undefined;
}

const kindOf = (m: Message): MessageKind =>
  m.isSystemMessage === true ? "system" : m.isBotMessage === true ? "bot" : "person";

/**
 * A thread's messages as the message listing shows them (`chatThreadId`, newest first): which of
 * its new messages are a bot's or the system's (`--replies on` leaves those out), and how many
 * messages and participants it has (thresholds counted again). One reading of a thread is shared
 * by the questions asked together (one per channel showing it), and a reading reads one page
 * further only while a message asked about is not on it yet.
 */
export class ThreadMessages {
  private readonly readings = new Map<string, Promise<Reading>>();
  private readonly now: () => number;
  /** Listing requests made, for tests. */
  requests = 0;

  constructor(
    private readonly client: Pick<InsightClient, "listMessages">,
    o: { now?: () => number } = {},
  ) {
    this.now = o.now ?? Date.now;
  }

  /**
   * The kind of each of these messages of the thread; a message the listing does not show yet
   * is left out of the answer (the caller may ask again a little later).
   */
  async kinds(
    groupId: string,
    threadId: string,
    messageIds: readonly string[],
  ): Promise<Map<string, MessageKind>> {
    const wanted = new Set(messageIds);
    const missing = (r: Reading) => [...wanted].some((id) => !r.kinds.has(id));
    let r = await this.reading(groupId, threadId, false);
    // A reading from before these messages were listed: one fresh look.
    if (missing(r) && r.fetchedAt < this.now()) r = await this.reading(groupId, threadId, true);
    while (missing(r) && !r.exhausted && r.pagesRead < MAX_PAGES) r = await this.more(groupId, threadId, r);
    const out = new Map<string, MessageKind>();
    for (const id of wanted) {
      const k = r.kinds.get(id);
      if (k) out.set(id, k);
    }
    return out;
  }

  /** How many messages the thread has, and how many people wrote them (system messages left out). */
  async counts(groupId: string, threadId: string): Promise<ThreadCounts> {
    let r = await this.reading(groupId, threadId, true);
    while (!r.exhausted && r.pagesRead < MAX_PAGES) r = await this.more(groupId, threadId, r);
    return {
      messageCount: r.total ?? (r.exhausted ? r.kinds.size : undefined),
      // Past the pages read, the authors are a lower bound: enough for a threshold.
      participantCount: r.authors.size > 0 ? r.authors.size : undefined,
    };
  }

  private reading(groupId: string, threadId: string, fresh: boolean): Promise<Reading> {
    const key = `${groupId}\n${threadId}`;
    const kept = this.readings.get(key);
    if (kept && !fresh) {
      return kept.then((r) =>
        this.now() - r.fetchedAt <= CACHE_MS ? r : this.reading(groupId, threadId, true),
      );
    }
    const p = this.page(groupId, threadId, undefined);
    // Least recently read first; the oldest go past the cap. A failed reading is not kept.
    this.readings.delete(key);
    this.readings.set(key, p);
    p.catch(() => {
      if (this.readings.get(key) === p) this.readings.delete(key);
    });
    for (const oldest of this.readings.keys()) {
      if (this.readings.size <= MAX_THREADS) break;
      this.readings.delete(oldest);
    }
    return p;
  }

  private more(groupId: string, threadId: string, r: Reading): Promise<Reading> {
    return this.page(groupId, threadId, r);
  }

  private async page(groupId: string, threadId: string, extend: Reading | undefined): Promise<Reading> {
    const page = (extend?.pagesRead ?? 0) + 1;
    const fetchedAt = this.now();
    this.requests++;
    const res = await this.client.listMessages(groupId, {
      chatThreadId: threadId,
      page,
      limit: PAGE_SIZE,
      sort: "desc",
      range: "allTime",
    });
    const r: Reading = extend
      ? { ...extend, kinds: new Map(extend.kinds), authors: new Set(extend.authors) }
      : { fetchedAt, kinds: new Map(), authors: new Set(), pagesRead: 0, exhausted: false, total: undefined };
    for (const m of res.data) {
      r.kinds.set(m.id, kindOf(m));
      const author = m.authorInfo?.id;
      if (author && m.isSystemMessage !== true) r.authors.add(author);
    }
    r.pagesRead = page;
    r.exhausted = isLastPage(res, page, PAGE_SIZE);
    r.total = res.pagination?.total ?? r.total;
    return r;
  }
}
