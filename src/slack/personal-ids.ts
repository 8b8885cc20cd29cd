import * as z from "zod";

/*
 * The action ids, callback ids and values of what is personal (watches, reminders, the search
 * shortcuts). Kept apart from action-ids.ts and button-values.ts so this work stays in its own
 * files; a plain module, so renderers import nothing with I/O.
 */

/** The shortcuts' callback ids: public (docs/using.md, "Shortcuts"), in the manifest too. */
export const SHORTCUTS = {
  /** Message shortcut "Search the community for this". */
  searchMessage: "search_community",
  /** Global shortcut "Search the community". */
  searchGlobal: "search_community_global",
} as const;

export const PERSONAL_ACTIONS = {
  /** `watch list` and Home: removes one watch. */
  watchRemove: "insight.watch.remove",
  /** Home: opens the Edit modal of one watch. */
  watchEdit: "insight.watch.edit",
  /** `watch list` and Home: cancels one pending reminder. */
  reminderCancel: "insight.remind.cancel",
} as const;

/** The watch Edit modal. */
export const WATCH_MODAL_CALLBACK = "insight.watch.modal";
/** The search modal of both shortcuts (its form is submitted to search again). */
export const SEARCH_MODAL_CALLBACK = "insight.search.modal";
/** Stacked on the search modal: which channel a result is shared in, when none was picked. */
export const SHARE_PICK_CALLBACK = "insight.search.share_to";

const id = z.string().min(1).max(200);

/** Which watch or reminder a button is about. */
export const itemRefSchema = z.object({ i: id });
export type ItemRef = z.infer<typeof itemRefSchema>;
export const encodeItemRef = (r: ItemRef): string => JSON.stringify({ i: r.i });

/** What the search modal carries between its views: the channel it was opened from, if any. */
export const searchModalStateSchema = z.object({ c: z.string().max(100).optional() });
export type SearchModalState = z.infer<typeof searchModalStateSchema>;
export const encodeSearchModalState = (s: SearchModalState): string => JSON.stringify(s.c ? { c: s.c } : {});
