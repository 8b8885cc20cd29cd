import { tomorrowAt } from "./local-time.js";

/*
 * A reminder set from a card (`digest.remind`) and when it is due. Pure.
 */

export interface Reminder {
  id: string;
  userId: string;
  /** The card it was set on: its channel (a DM for a watch card) and ts. */
  channelId: string;
  cardTs: string;
  threadId: string;
  groupId: string;
  /** The thread's title when it was set (the reminder reads the current one when it fires). */
  title: string;
  dueAtMs: number;
  createdAtMs: number;
}

/** When a reminder is due, as the card's menu offers it. */
export const REMIND_CHOICES = {
  "1h": "In 1 hour",
  "4h": "In 4 hours",
  tomorrow: "Tomorrow at 9:00",
} as const;
export type RemindChoice = keyof typeof REMIND_CHOICES;

export const isRemindChoice = (v: string | undefined): v is RemindChoice =>
  v !== undefined && Object.hasOwn(REMIND_CHOICES, v);

const HOUR_MS = 3_600_000;
/** "Tomorrow at 9:00" in the presser's zone. */
const TOMORROW_AT = 9 * 60;

/**
 * The moment a choice means, to the minute (a double click within the minute is one reminder):
 * now plus 1 or 4 hours, or 9:00 on the presser's next calendar day in their own zone.
 */
export function remindAt(choice: RemindChoice, nowMs: number, timeZone: string): number {
  const at =
    choice === "1h"
      ? nowMs + HOUR_MS
      : choice === "4h"
        ? nowMs + 4 * HOUR_MS
        : tomorrowAt(nowMs, TOMORROW_AT, timeZone);
  return Math.floor(at / 60_000) * 60_000;
}

/** `<due minute>.<channel>.<ts>`: one reminder per card and minute. */
export function reminderId(r: Pick<Reminder, "dueAtMs" | "channelId" | "cardTs">): string {
  return `${Math.floor(r.dueAtMs / 60_000)}.${r.channelId}.${r.cardTs}`;
}
