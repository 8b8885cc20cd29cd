import * as z from "zod";

/*
 * The action ids, callback id and button values of the settings modal and the Subscribe here
 * button. Kept apart from action-ids.ts so the noise-control work stays in its own files; a
 * plain module, so renderers import nothing with I/O.
 */
export const SETTINGS_ACTIONS = {
  /** Opens the settings modal of one subscription (list, Home). Changes configuration. */
  open: "insight.settings.open",
  /** `groups`: subscribes the channel the command came from. Changes configuration. */
  subscribeHere: "insight.groups.subscribe",
} as const;

export const SETTINGS_MODAL_CALLBACK = "insight.settings.modal";

const id = z.string().min(1).max(100);

/** Which subscription a Settings button or the modal is about: channel and group. */
export const subscriptionRefSchema = z.object({ c: id, g: id });
export type SubscriptionRef = z.infer<typeof subscriptionRefSchema>;

/** The Subscribe here button: the group (its name is a label; the id is checked again on click). */
export const subscribeHereSchema = z.object({ g: id, n: z.string().max(150) });
export type SubscribeHereValue = z.infer<typeof subscribeHereSchema>;

export const encodeSubscriptionRef = (r: SubscriptionRef): string => JSON.stringify({ c: r.c, g: r.g });
export const encodeSubscribeHere = (v: SubscribeHereValue): string =>
  JSON.stringify({ g: v.g, n: v.n.length > 150 ? `${v.n.slice(0, 149)}…` : v.n });
