// The traffic of bench:steady: what a channel following a chat group sees, as the Insight Service
// sends it. New threads are enriched (`chatthread-crud` created), earlier threads of the run are
// re-enriched with a new summary and sentiment (`chatthread-crud` updated), and messages arrive
// in the group's recent threads (`chatmessage-crud` created). Each change is made in the emulator
// first, as the service's own store would hold it before the webhook goes out, so the app's
// listing lookups find what the delivery names.
import { messageEvent, SENTIMENTS, threadEvent } from "../dev/emulator/index.js";
import type { EmulatorStore } from "../dev/emulator/store.js";
import type { EmulatedGroup, EmulatedThread } from "../dev/emulator/types.js";

export type DeliveryKind = "created" | "updated" | "message";

/** How many deliveries of each kind in every cycle of the traffic. */
export interface Mix {
  created: number;
  updated: number;
  messages: number;
}

export const DEFAULT_MIX: Mix = { created: 1, updated: 1, messages: 3 };

/** `1 thread created : 1 thread updated : 3 messages`. */
export const describeMix = (m: Mix): string =>
  `${m.created} thread created : ${m.updated} thread updated : ${m.messages} message${m.messages === 1 ? "" : "s"} (chatmessage-crud created)`;

/** Parses `--mix 1:1:3` (created:updated:messages). */
export function parseMix(s: string): Mix {
  const [created, updated, messages] = s.split(":").map(Number);
  const mix = { created: created ?? NaN, updated: updated ?? NaN, messages: messages ?? NaN };
  if (
    ![mix.created, mix.updated, mix.messages].every((n) => Number.isInteger(n) && n >= 0) ||
    mix.created < 1
  )
    throw new Error(`--mix is created:updated:messages with at least one created, not ${s}`);
  return mix;
}

/**
 * One cycle of the mix, the kinds spread out rather than in runs: a new thread first (so that
 * updates and messages have a thread to name), then the rest interleaved.
 */
export function cycleOf(m: Mix): DeliveryKind[] {
  const total = m.created + m.updated + m.messages;
  const out: DeliveryKind[] = [];
  const given = { created: 0, updated: 0, message: 0 };
  const want = { created: m.created, updated: m.updated, message: m.messages };
  for (let i = 0; i < total; i++) {
    // The kind furthest behind its share of the cycle so far goes next (created first on ties).
    const kinds: DeliveryKind[] = ["created", "updated", "message"];
    const next = kinds
      .filter((k) => given[k] < want[k])
      .sort((a, b) => given[a] / want[a] - given[b] / want[b])[0];
    if (!next) break;
    given[next] += 1;
    out.push(next);
  }
  return out;
}

/** Threads back from the newest that a re-enrichment picks from (never the newest few: a real one comes later). */
const UPDATE_LAG = 10;
/** A re-enrichment picks among this many threads before those (a thread again only after the others). */
const REENRICHED = 50;
/** Re-enrichments start once this many threads are old enough. */
const MIN_UPDATABLE = 10;
/** Messages go to one of the newest this many threads of the run. */
const ACTIVE_THREADS = 20;

/** The next deliveries of one app's traffic; `counts` says how many of each were made. */
export class SteadyTraffic {
  private readonly cycle: DeliveryKind[];
  private i = 0;
  private revision = 0;
  private readonly threads: EmulatedThread[] = [];
  readonly counts = { created: 0, updated: 0, message: 0 };

  constructor(
    private readonly store: EmulatorStore,
    private readonly group: EmulatedGroup,
    mix: Mix,
  ) {
    this.cycle = cycleOf(mix);
  }

  /** Threads a re-enrichment may pick: not the newest UPDATE_LAG, at most the REENRICHED before them. */
  private updatable(): EmulatedThread[] {
    const end = this.threads.length - UPDATE_LAG;
    return end > 0 ? this.threads.slice(Math.max(0, end - REENRICHED), end) : [];
  }

  /** The next delivery's JSON body. */
  next(): string {
    const want = this.cycle[this.i++ % this.cycle.length] ?? "created";
    // Until the run has threads to re-enrich (or to write in), new threads instead.
    const kind: DeliveryKind =
      this.threads.length === 0 || (want === "updated" && this.updatable().length < MIN_UPDATABLE)
        ? "created"
        : want;
    this.counts[kind] += 1;
    const now = new Date();
    if (kind === "created") {
      const thread = this.store.addThread(this.group._id);
      this.threads.push(thread);
      return JSON.stringify(threadEvent("created", this.group, thread, now));
    }
    if (kind === "updated") {
      const pool = this.updatable();
      const r = ++this.revision;
      // Round the pool: a thread is re-enriched again only after every other one in it.
      const pick = pool[r % pool.length];
      const thread = this.store.updateThread(this.group._id, pick?.id ?? "", {
        summary: `${pick?.summary ?? ""} Update ${r}: members confirmed the fix.`,
        sentiment: SENTIMENTS[r % SENTIMENTS.length] ?? "neutral",
      });
      return JSON.stringify(threadEvent("updated", this.group, thread, now));
    }
    const n = this.threads.length;
    const recent = this.threads[n - 1 - (this.counts.message % Math.min(n, ACTIVE_THREADS))];
    const message = this.store.addMessage(this.group._id, recent?.id ?? "");
    return JSON.stringify(messageEvent("created", this.group, message, now));
  }
}
