/*
 * Loads the realistic seed data into a store: the same `seed` and clock give the same data.
 * Threads are spread over the last ~4 months relative to `now`, the newest of every group
 * within the last few days, so `last7Days` is never empty.
 */
import { createRandom, type Random } from "./random.js";
import {
  COMMUNITIES,
  GROUPS,
  INJECTION_TEMPLATE,
  REACTION_EMOJIS,
  SEED,
  SYSTEM_LINES,
  type CommunityContent,
  type GroupContent,
  type ThreadTemplate,
} from "./seed-content.js";
import type { EmulatorStore } from "./store.js";
import { fillWith, renderTemplate } from "./template.js";
import type { EmulatedAuthor, EmulatedMessage, EmulatedReaction, EmulatedThread } from "./types.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Threads span this many days back from now. */
export const SEED_SPAN_DAYS = 118;

export function seedStore(store: EmulatorStore, seed: number, now: Date): void {
  const rng = createRandom(seed);
  const nowMs = now.getTime();
  const communities = new Map<string, CommunityContent>();
  for (const c of COMMUNITIES) {
    communities.set(c.id, c);
    store.insertSeededCommunity(
      {
        _id: c.id,
        name: c.name,
        description: c.description,
        CreationDate: new Date(nowMs - c.createdDaysAgo * DAY_MS).toISOString(),
      },
      c.members,
    );
  }
  for (const g of GROUPS) {
    const community = communities.get(g.community);
    if (!community) throw new Error(`seed group ${g.id} names an unknown community`);
    store.insertSeededGroup(
      {
        _id: g.id,
        name: g.name,
        community: g.community,
        description: g.description,
        isDirectMessageGroup: g.isDirectMessageGroup,
        platform: g.platform,
        CreationDate: new Date(nowMs - g.createdDaysAgo * DAY_MS).toISOString(),
        memberCount: g.memberCount,
      },
      g.templates,
      g.slots,
    );
    const slotMs = (SEED_SPAN_DAYS * DAY_MS) / g.threadCount;
    for (let i = 0; i < g.threadCount; i++) {
      const ageMs = 20 * MINUTE_MS + i * slotMs + rng.next() * slotMs * 0.8;
      const tpl = renderTemplate(g.templates[i % g.templates.length] as ThreadTemplate, g.slots, rng);
      seedThread(store, rng, g, community, tpl, nowMs - ageMs, store.nextThreadId());
    }
    if (g.id === SEED.groups.support) {
      seedThread(store, rng, g, community, INJECTION_TEMPLATE, nowMs - 2 * DAY_MS, SEED.threads.injection);
    }
  }
}

function seedThread(
  store: EmulatorStore,
  rng: Random,
  g: GroupContent,
  c: CommunityContent,
  tpl: ThreadTemplate,
  lastMs: number,
  threadId: string,
): void {
  const people = g.dmMembers
    ? g.dmMembers.map((i) => c.members[i]).filter((m): m is EmulatedAuthor => m !== undefined)
    : c.members;
  const asker = rng.pick(people);
  const others = people.filter((p) => p.id !== asker.id);
  const responder = () => (others.length ? rng.pick(others) : asker);

  // Who writes what: the opener is the asker's, replies alternate responder / asker.
  const lines: { author: EmulatedAuthor; text: string; system?: boolean; bot?: boolean }[] = [];
  if (!g.isDirectMessageGroup && rng.chance(0.12)) {
    lines.push({
      author: asker,
      text: fillWith(rng.pick(SYSTEM_LINES), { name: asker.fullName }),
      system: true,
    });
  }
  lines.push({ author: asker, text: tpl.opener });
  tpl.replies.forEach((text, j) => lines.push({ author: j % 2 === 0 ? responder() : asker, text }));
  if (!g.isDirectMessageGroup && rng.chance(0.15)) {
    const line = renderTemplate({ ...tpl, opener: rng.pick(c.botLines) }, g.slots, rng).opener;
    lines.splice(Math.min(lines.length, rng.int(1, 2)), 0, { author: c.bot, text: line, bot: true });
  }

  // Times run backwards from the last message.
  const times: number[] = new Array<number>(lines.length);
  let t = lastMs;
  for (let k = lines.length - 1; k >= 0; k--) {
    times[k] = Math.round(t);
    t -= rng.int(2, 150) * MINUTE_MS + rng.int(0, 59_000);
  }

  const messages: EmulatedMessage[] = [];
  let previous: EmulatedMessage | undefined;
  lines.forEach((line, k) => {
    const m: EmulatedMessage = {
      id: store.nextMessageId(),
      threadId,
      messageDate: new Date(times[k] ?? lastMs).toISOString(),
      messageText: line.text,
      isSystemMessage: line.system === true,
      isBotMessage: line.bot === true,
      authorInfo: line.author,
      reactions: line.system ? [] : reactions(rng, k === 0 ? 0.5 : 0.3),
    };
    if (previous && !line.system && !line.bot && !previous.isSystemMessage && rng.chance(0.25)) {
      m.quotedMessageText =
        previous.messageText.length > 100 ? `${previous.messageText.slice(0, 100)}…` : previous.messageText;
      m.quotedMessageAuthor = previous.authorInfo.fullName;
    }
    messages.push(m);
    if (!line.system) previous = m;
  });

  const humans = new Set(
    messages.filter((m) => !m.isSystemMessage && !m.isBotMessage).map((m) => m.authorInfo.id),
  );
  const first = messages[0];
  const last = messages[messages.length - 1];
  const thread: EmulatedThread = {
    id: threadId,
    title: tpl.title,
    firstMessageDate: first ? first.messageDate : new Date(lastMs).toISOString(),
    lastMessageDate: last ? last.messageDate : new Date(lastMs).toISOString(),
    messageCount: messages.length,
    summary: tpl.summary,
    sentiment: tpl.sentiment,
    isQuestionLed: tpl.question,
    questionResponseStatus: tpl.status,
    keywords: [...tpl.keywords],
    participantCount: humans.size,
  };
  store.insertSeeded(g.id, thread, messages);
}

function reactions(rng: Random, p: number): EmulatedReaction[] {
  if (!rng.chance(p)) return [];
  const out: EmulatedReaction[] = [];
  const n = rng.int(1, 2);
  for (let i = 0; i < n; i++) {
    const emoji = rng.pick(REACTION_EMOJIS);
    if (!out.some((r) => r.emoji === emoji)) out.push({ emoji, count: rng.int(1, 7) });
  }
  return out;
}
