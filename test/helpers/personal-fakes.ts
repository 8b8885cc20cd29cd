/*
 * In-memory fakes of the personal stores (watches, reminders, watch DM refs) with the same
 * answers as the Redis ones (tested for real in test/store/), for handler-level tests.
 */
import type { Reminder } from "../../src/domain/reminder.js";
import {
  MAX_WATCHES_PER_PERSON,
  normalizeSpec,
  sameSpec,
  type Watch,
  type WatchSpec,
} from "../../src/domain/watch.js";
import type { AddReminderResult } from "../../src/store/reminders.js";
import type { AddWatchResult, WatchStore } from "../../src/store/watches.js";
import type { WatchDmRef } from "../../src/store/watch-dms.js";

export class FakeWatches implements Pick<
  WatchStore,
  "add" | "list" | "get" | "remove" | "removeAll" | "replace" | "all" | "limit"
> {
  readonly rows = new Map<string, Watch[]>();
  private next = new Map<string, number>();
  constructor(readonly limit = MAX_WATCHES_PER_PERSON) {}

  async add(userId: string, spec: WatchSpec, at: Date): Promise<AddWatchResult> {
    const list = this.rows.get(userId) ?? [];
    const same = list.findIndex((w) => sameSpec(w, spec));
    if (same >= 0) return { ok: false, reason: "duplicate", watch: list[same] as Watch, position: same + 1 };
    if (list.length >= this.limit)
      return { ok: false, reason: "limit", count: list.length, limit: this.limit };
    const id = (this.next.get(userId) ?? 0) + 1;
    this.next.set(userId, id);
    const watch: Watch = { ...normalizeSpec(spec), id: String(id), userId, createdAt: at.toISOString() };
    this.rows.set(userId, [...list, watch]);
    return { ok: true, watch, count: list.length + 1 };
  }
  async list(userId: string): Promise<Watch[]> {
    return [...(this.rows.get(userId) ?? [])];
  }
  async get(userId: string, id: string): Promise<Watch | undefined> {
    return this.rows.get(userId)?.find((w) => w.id === id);
  }
  async remove(userId: string, id: string): Promise<boolean> {
    const list = this.rows.get(userId) ?? [];
    const kept = list.filter((w) => w.id !== id);
    this.rows.set(userId, kept);
    return kept.length < list.length;
  }
  async removeAll(userId: string): Promise<number> {
    const n = this.rows.get(userId)?.length ?? 0;
    this.rows.delete(userId);
    return n;
  }
  async replace(userId: string, id: string, spec: WatchSpec): Promise<boolean> {
    const list = this.rows.get(userId) ?? [];
    const i = list.findIndex((w) => w.id === id);
    const cur = list[i];
    if (!cur) return false;
    list[i] = { ...normalizeSpec(spec), id, userId, createdAt: cur.createdAt };
    return true;
  }
  async all(): Promise<Watch[]> {
    return [...this.rows.values()].flat();
  }
}

export class FakeReminders {
  readonly rows = new Map<string, Reminder>();
  constructor(readonly limit = 25) {}
  private key = (u: string, id: string) => `${u} ${id}`;
  async add(r: Reminder): Promise<AddReminderResult> {
    if (this.rows.has(this.key(r.userId, r.id))) return "exists";
    if ((await this.list(r.userId)).length >= this.limit) return "limit";
    this.rows.set(this.key(r.userId, r.id), r);
    return "added";
  }
  async list(userId: string): Promise<Reminder[]> {
    return [...this.rows.values()].filter((r) => r.userId === userId).sort((a, b) => a.dueAtMs - b.dueAtMs);
  }
  async get(userId: string, id: string): Promise<Reminder | undefined> {
    return this.rows.get(this.key(userId, id));
  }
  async remove(userId: string, id: string): Promise<boolean> {
    return this.rows.delete(this.key(userId, id));
  }
}

export class FakeWatchDms {
  readonly rows = new Map<string, WatchDmRef>();
  async get(userId: string, threadId: string): Promise<WatchDmRef | undefined> {
    return this.rows.get(`${userId} ${threadId}`);
  }
}

/** The personal part of the commands' deps, from fakes. */
export function fakePersonalDeps(o: { timeZone?: string } = {}) {
  const watches = new FakeWatches();
  const reminders = new FakeReminders();
  const watchDms = new FakeWatchDms();
  const scheduled: Reminder[] = [];
  return {
    watches,
    reminders,
    watchDms,
    scheduled,
    deps: {
      watches,
      reminders,
      watchDms,
      userTimeZoneOf: async () => o.timeZone ?? "Europe/Berlin",
      scheduleReminder: async (r: Reminder) => {
        scheduled.push(r);
      },
    },
  };
}
