/*
 * Wire views: what the REST API answers for each stored resource. Pure functions.
 */
import type { EmulatedCommunity, EmulatedGroup, EmulatedMessage, EmulatedThread } from "./types.js";

export const communityView = (c: EmulatedCommunity) => ({
  _id: c._id,
  name: c.name,
  description: c.description,
  CreationDate: c.CreationDate,
});

export const groupView = (g: EmulatedGroup) => ({
  _id: g._id,
  name: g.name,
  community: g.community,
  description: g.description,
  isDirectMessageGroup: g.isDirectMessageGroup,
});

/** The detail shape is not shown: the list fields plus a few counts the emulator chose. */
export const groupDetailView = (g: EmulatedGroup, counts: { messageCount: number; threadCount: number }) => ({
  ...groupView(g),
  platform: g.platform,
  CreationDate: g.CreationDate,
  memberCount: g.memberCount,
  threadCount: counts.threadCount,
  messageCount: counts.messageCount,
});

export const threadView = (t: EmulatedThread) => ({
  id: t.id,
  title: t.title,
  firstMessageDate: t.firstMessageDate,
  lastMessageDate: t.lastMessageDate,
  messageCount: t.messageCount,
  summary: t.summary,
  sentiment: t.sentiment,
  isQuestionLed: t.isQuestionLed,
  questionResponseStatus: t.questionResponseStatus,
  keywords: [...t.keywords],
  participantCount: t.participantCount,
});

/** chatThreadSummary is left out for system messages (it is optional in the interface). */
export function messageView(m: EmulatedMessage, thread: EmulatedThread | undefined) {
  return {
    id: m.id,
    messageDate: m.messageDate,
    messageText: m.messageText,
    isSystemMessage: m.isSystemMessage,
    isBotMessage: m.isBotMessage,
    authorInfo: { id: m.authorInfo.id, handle: m.authorInfo.handle, fullName: m.authorInfo.fullName },
    reactions: m.reactions.map((r) => ({ emoji: r.emoji, count: r.count })),
    ...(thread && !m.isSystemMessage ? { chatThreadSummary: { id: thread.id, title: thread.title } } : {}),
    ...(m.quotedMessageText !== undefined ? { quotedMessageText: m.quotedMessageText } : {}),
    ...(m.quotedMessageAuthor !== undefined ? { quotedMessageAuthor: m.quotedMessageAuthor } : {}),
  };
}
