import type { RecordedRequest } from "./types.js";

/** Beyond this many entries the oldest tenth is dropped, so a long-running demo does not grow forever. */
export const MAX_RECORDED = 100_000;

/** Every API request the emulator received, in arrival order. Never holds the X-API-Key value. */
export class RequestLog {
  private entries: RecordedRequest[] = [];

  constructor(private readonly max = MAX_RECORDED) {}

  all(): RecordedRequest[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }

  count(predicate?: (r: RecordedRequest) => boolean): number {
    return predicate ? this.entries.filter(predicate).length : this.entries.length;
  }

  /** Records a request on arrival; the caller sets `status` when it answers. */
  start(entry: Omit<RecordedRequest, "status">): RecordedRequest {
    const r: RecordedRequest = { ...entry, status: null };
    this.entries.push(r);
    if (this.entries.length > this.max) this.entries.splice(0, Math.ceil(this.max / 10));
    return r;
  }
}
