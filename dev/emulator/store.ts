/*
 * The emulator's in-memory data: communities, chat groups, threads and messages. Threads and
 * messages are kept in SortedIndex per group (and per thread), so listings stay cheap for
 * groups with tens of thousands of threads.
 */
import { createRandom, objectId, type Random } from "./random.js";
import { COMMUNITIES, GROUPS, type ThreadTemplate } from "./seed-content.js";
import { SortedIndex, type SortOrder, type Window } from "./sorted-index.js";
import { renderTemplate, type Slots } from "./template.js";
import type {
  EmulatedAuthor,
  EmulatedCommunity,
  EmulatedGroup,
  EmulatedMessage,
  EmulatedThread,
} from "./types.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

interface GroupData {
  group: EmulatedGroup;
  threads: SortedIndex<EmulatedThread>;
  messages: SortedIndex<EmulatedMessage>;
  messagesByThread: Map<string, SortedIndex<EmulatedMessage>>;
  templates: readonly ThreadTemplate[];
  slots: Slots;
}

export interface StoreOptions {
  seed: number;
  now: () => Date;
}

export class UnknownResourceError extends Error {
  override readonly name = "UnknownResourceError";
}

const ALL_TEMPLATES: readonly ThreadTemplate[] = GROUPS.flatMap((g) => g.templates);
const ALL_SLOTS: Slots = Object.assign({}, ...GROUPS.map((g) => g.slots)) as Slots;
const GENERIC_MEMBERS: readonly EmulatedAuthor[] = COMMUNITIES.flatMap((c) => c.members);

const messageDateOf = (m: EmulatedMessage) => m.messageDate;
const threadDateOf = (t: EmulatedThread) => t.lastMessageDate;

export class EmulatorStore {
  private readonly communityMap = new Map<string, EmulatedCommunity>();
  private readonly groupMap = new Map<string, GroupData>();
  private readonly membersByCommunity = new Map<string, readonly EmulatedAuthor[]>();
  private readonly rng: Random;
  private readonly now: () => Date;
  private seq = { community: 0x100, group: 0x100, thread: 0x100000, message: 0x1000000 };

  constructor(opts: StoreOptions) {
    this.rng = createRandom(opts.seed ^ 0x5eed);
    this.now = opts.now;
  }

  // --- Reads -------------------------------------------------------------------------------

  communities(): EmulatedCommunity[] {
    return [...this.communityMap.values()];
  }

  community(id: string): EmulatedCommunity | undefined {
    return this.communityMap.get(id);
  }

  groups(communityId?: string): EmulatedGroup[] {
    const all = [...this.groupMap.values()].map((g) => g.group);
    return communityId === undefined ? all : all.filter((g) => g.community === communityId);
  }

  group(id: string): EmulatedGroup | undefined {
    return this.groupMap.get(id)?.group;
  }

  /** Members who write in a community's groups (generated messages pick authors from these). */
  members(communityId: string): readonly EmulatedAuthor[] {
    return this.membersByCommunity.get(communityId) ?? GENERIC_MEMBERS;
  }

  /** Threads of a group, newest lastMessageDate first. */
  threads(groupId: string): EmulatedThread[] {
    return [...this.data(groupId).threads.all()];
  }

  thread(groupId: string, threadId: string): EmulatedThread | undefined {
    return this.groupMap.get(groupId)?.threads.get(threadId);
  }

  /** Messages of a group (or of one thread), newest messageDate first. */
  messages(groupId: string, threadId?: string): EmulatedMessage[] {
    const g = this.data(groupId);
    if (threadId === undefined) return [...g.messages.all()];
    return [...(g.messagesByThread.get(threadId)?.all() ?? [])];
  }

  /** One page of threads with lastMessageDate >= fromMs. */
  threadWindow(
    groupId: string,
    fromMs: number | undefined,
    sort: SortOrder,
    offset: number,
    limit: number,
  ): Window<EmulatedThread> {
    return this.data(groupId).threads.window(fromMs, sort, offset, limit);
  }

  /** One page of messages (of the group, or of one thread) with messageDate >= fromMs. */
  messageWindow(
    groupId: string,
    threadId: string | undefined,
    fromMs: number | undefined,
    sort: SortOrder,
    offset: number,
    limit: number,
  ): Window<EmulatedMessage> {
    const g = this.data(groupId);
    const index = threadId === undefined ? g.messages : g.messagesByThread.get(threadId);
    return index ? index.window(fromMs, sort, offset, limit) : { data: [], total: 0 };
  }

  /** Sum of the threads' message counts (reported in the group detail). */
  messageCount(groupId: string): number {
    let n = 0;
    for (const t of this.data(groupId).threads.all()) n += t.messageCount;
    return n;
  }

  threadCount(groupId: string): number {
    return this.data(groupId).threads.size;
  }

  // --- Writes ------------------------------------------------------------------------------

  addCommunity(
    partial: Partial<EmulatedCommunity> = {},
    members?: readonly EmulatedAuthor[],
  ): EmulatedCommunity {
    const n = ++this.seq.community;
    const c: EmulatedCommunity = {
      _id: objectId("community", n),
      name: `Community ${n - 0x100}`,
      description: "A community added at run time.",
      CreationDate: this.now().toISOString(),
      ...partial,
    };
    this.communityMap.set(c._id, c);
    if (members) this.membersByCommunity.set(c._id, members);
    return c;
  }

  addGroup(
    communityId: string,
    partial: Partial<EmulatedGroup> = {},
    content?: { templates?: readonly ThreadTemplate[]; slots?: Slots },
  ): EmulatedGroup {
    if (!this.communityMap.has(communityId))
      throw new UnknownResourceError(`unknown community ${communityId}`);
    const n = ++this.seq.group;
    const group: EmulatedGroup = {
      _id: objectId("group", n),
      name: `Chat group ${n - 0x100}`,
      description: "A chat group added at run time.",
      isDirectMessageGroup: false,
      platform: "telegram",
      CreationDate: this.now().toISOString(),
      memberCount: 25,
      ...partial,
      community: communityId,
    };
    this.groupMap.set(group._id, {
      group,
      threads: new SortedIndex(threadDateOf),
      messages: new SortedIndex(messageDateOf),
      messagesByThread: new Map(),
      templates: content?.templates?.length ? content.templates : ALL_TEMPLATES,
      slots: content?.slots ?? ALL_SLOTS,
    });
    return group;
  }

  /** Adds one thread; every field not given gets a deterministic, realistic default. */
  addThread(groupId: string, partial: Partial<EmulatedThread> = {}): EmulatedThread {
    const g = this.data(groupId);
    const t = renderTemplate(this.rng.pick(g.templates), g.slots, this.rng);
    // Dates given in `partial` anchor the defaults, so first <= last holds either way.
    const given = Date.parse(partial.lastMessageDate ?? "");
    const last = Number.isNaN(given) ? this.now().getTime() : given;
    const messageCount = 1 + t.replies.length;
    const thread: EmulatedThread = {
      id: this.nextThreadId(),
      title: t.title,
      firstMessageDate: new Date(last - (messageCount - 1) * 7 * MINUTE_MS).toISOString(),
      lastMessageDate: new Date(last).toISOString(),
      messageCount,
      summary: t.summary,
      sentiment: t.sentiment,
      isQuestionLed: t.question,
      questionResponseStatus: t.status,
      keywords: [...t.keywords],
      participantCount: Math.min(messageCount, 1 + this.rng.int(1, 3)),
      ...partial,
    };
    g.threads.set(thread);
    return thread;
  }

  /**
   * Adds `count` threads spread evenly over the last `withinDays` days (default 120), without
   * messages. Built for volume: 20,000 threads take a few tens of milliseconds.
   */
  addThreads(groupId: string, count: number, opts: { withinDays?: number } = {}): EmulatedThread[] {
    const g = this.data(groupId);
    const spanMs = (opts.withinDays ?? 120) * DAY_MS;
    const nowMs = this.now().getTime();
    const step = count > 0 ? spanMs / count : 0;
    // Render each template once per call and vary the numbers, instead of per thread.
    const pool = g.templates.map((tpl) => renderTemplate(tpl, g.slots, this.rng));
    const out: EmulatedThread[] = [];
    for (let i = 0; i < count; i++) {
      const t = pool[i % pool.length] as ThreadTemplate;
      const last = nowMs - Math.floor(i * step + this.rng.next() * step * 0.9);
      const messageCount = this.rng.int(2, 40);
      const thread: EmulatedThread = {
        id: this.nextThreadId(),
        title: `${t.title} (#${i + 1})`,
        firstMessageDate: new Date(last - messageCount * this.rng.int(3, 90) * MINUTE_MS).toISOString(),
        lastMessageDate: new Date(last).toISOString(),
        messageCount,
        summary: t.summary,
        sentiment: t.sentiment,
        isQuestionLed: t.question,
        questionResponseStatus: t.status,
        keywords: t.keywords,
        participantCount: Math.min(messageCount, this.rng.int(2, 12)),
      };
      g.threads.set(thread);
      out.push(thread);
    }
    return out;
  }

  /** Replaces fields of a thread (the id stays); returns the new thread. */
  updateThread(groupId: string, threadId: string, changes: Partial<EmulatedThread>): EmulatedThread {
    const g = this.data(groupId);
    const old = g.threads.get(threadId);
    if (!old) throw new UnknownResourceError(`unknown thread ${threadId} in chat group ${groupId}`);
    const thread: EmulatedThread = { ...old, ...changes, id: old.id };
    g.threads.set(thread);
    // Messages show the thread title in chatThreadSummary, read at answer time: nothing to redo.
    return thread;
  }

  /**
   * Adds a message to a thread (default: now, by a member of the community) and updates the
   * thread's messageCount, participantCount and dates.
   */
  addMessage(groupId: string, threadId: string, partial: Partial<EmulatedMessage> = {}): EmulatedMessage {
    const g = this.data(groupId);
    const thread = g.threads.get(threadId);
    if (!thread) throw new UnknownResourceError(`unknown thread ${threadId} in chat group ${groupId}`);
    const tpl = renderTemplate(this.rng.pick(g.templates), g.slots, this.rng);
    const message: EmulatedMessage = {
      id: this.nextMessageId(),
      threadId,
      messageDate: this.now().toISOString(),
      messageText: this.rng.pick(tpl.replies.length ? tpl.replies : [tpl.opener]),
      isSystemMessage: false,
      isBotMessage: false,
      authorInfo: this.rng.pick(this.members(g.group.community)),
      reactions: [],
      ...partial,
    };
    message.threadId = threadId;
    const newAuthor = !message.isSystemMessage && !this.authorIds(g, threadId).has(message.authorInfo.id);
    this.insertMessage(g, message);
    const firstMs = Math.min(Date.parse(thread.firstMessageDate), Date.parse(message.messageDate));
    const lastMs = Math.max(Date.parse(thread.lastMessageDate), Date.parse(message.messageDate));
    this.updateThread(groupId, threadId, {
      messageCount: thread.messageCount + 1,
      participantCount: thread.participantCount + (newAuthor ? 1 : 0),
      firstMessageDate: Number.isNaN(firstMs) ? thread.firstMessageDate : new Date(firstMs).toISOString(),
      lastMessageDate: Number.isNaN(lastMs) ? thread.lastMessageDate : new Date(lastMs).toISOString(),
    });
    return message;
  }

  // --- Seeding (used by seed.ts; not part of the public surface) ---------------------------

  /** Inserts a fully built thread and its messages as they are, with no derived updates. */
  insertSeeded(groupId: string, thread: EmulatedThread, messages: readonly EmulatedMessage[]): void {
    const g = this.data(groupId);
    g.threads.set(thread);
    for (const m of messages) this.insertMessage(g, m);
  }

  insertSeededCommunity(c: EmulatedCommunity, members: readonly EmulatedAuthor[]): void {
    this.communityMap.set(c._id, c);
    this.membersByCommunity.set(c._id, members);
  }

  insertSeededGroup(group: EmulatedGroup, templates: readonly ThreadTemplate[], slots: Slots): void {
    this.groupMap.set(group._id, {
      group,
      threads: new SortedIndex(threadDateOf),
      messages: new SortedIndex(messageDateOf),
      messagesByThread: new Map(),
      templates,
      slots,
    });
  }

  nextThreadId(): string {
    return objectId("thread", ++this.seq.thread);
  }

  nextMessageId(): string {
    return objectId("message", ++this.seq.message);
  }

  // --- Internals ---------------------------------------------------------------------------

  private data(groupId: string): GroupData {
    const g = this.groupMap.get(groupId);
    if (!g) throw new UnknownResourceError(`unknown chat group ${groupId}`);
    return g;
  }

  private insertMessage(g: GroupData, m: EmulatedMessage): void {
    g.messages.set(m);
    let perThread = g.messagesByThread.get(m.threadId);
    if (!perThread) {
      perThread = new SortedIndex(messageDateOf);
      g.messagesByThread.set(m.threadId, perThread);
    }
    perThread.set(m);
  }

  private authorIds(g: GroupData, threadId: string): Set<string> {
    const ids = new Set<string>();
    for (const m of g.messagesByThread.get(threadId)?.all() ?? []) {
      if (!m.isSystemMessage) ids.add(m.authorInfo.id);
    }
    return ids;
  }
}
