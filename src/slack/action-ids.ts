/**
 * The `action_id`s and callback ids of the app's own buttons and modals (the digest card's
 * public ones are in docs/using.md). Renderers put them on buttons; the handlers in actions/ match
 * them. A plain module, so renderers import nothing with I/O.
 */
export const ACTIONS = {
  /** Previous/Next page, or another followed group, of a `threads` listing. */
  threadsPage: "insight.threads.page",
  /** Opens the modal with a thread's messages. */
  viewMessages: "insight.threads.messages",
  /** Previous/Next page inside the messages modal. */
  messagesPage: "insight.messages.page",
  /** Posts one search result visibly in the channel. */
  share: "insight.search.share",
  /** Home tab: resumes a paused subscription (changes configuration). */
  resume: "insight.home.resume",
  /** Home tab: **See all** open threads, in a modal. */
  homeOpenThreads: "insight.home.open_threads",
  /** An assistant's answer: the next few matching threads. */
  askMore: "insight.ask.more",
} as const;

/**
 * The digest card's buttons: public names (docs/using.md "Digest card actions"), so that tests and
 * workflow tools can press them. Never rename one alone.
 */
export const DIGEST_ACTIONS = {
  viewMessages: "digest.view_messages",
  markHandled: "digest.mark_handled",
  assign: "digest.assign",
  follow: "digest.follow",
  /** A menu: in 1 hour, in 4 hours, tomorrow at 9:00 in the presser's zone (slack/actions/remind.ts). */
  remind: "digest.remind",
} as const;

/** The block_id prefix of a card's actions block; the rest names the thread (see button-values.ts). */
export const CARD_BLOCK_PREFIX = "digest.card";

export const MESSAGES_MODAL_CALLBACK = "insight.messages.modal";
