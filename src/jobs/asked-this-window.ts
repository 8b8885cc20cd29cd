/**
 * Job ids of windowed jobs (one job per card and window: a counts edit, a reply batch) this
 * process has added, each until its window ends. BullMQ keeps one job per id, so a second add
 * in the same window changes nothing, yet costs a script of about ten Redis commands; a busy
 * thread's every message asked again. Bounded: past `max` ids, the expired ones go, then the
 * oldest (a forgotten id is only asked again, which BullMQ absorbs).
 */
export class AskedThisWindow {
  private readonly until = new Map<string, number>();

  constructor(private readonly max = 10_000) {}

  /** Whether `id` was added here and its window has not ended by `now`. */
  has(id: string, now: number): boolean {
    const end = this.until.get(id);
    if (end === undefined) return false;
    if (end > now) return true;
    this.until.delete(id);
    return false;
  }

  /** Notes that `id` was added (after its add succeeded), until `endMs`. */
  note(id: string, endMs: number, now: number): void {
    if (this.until.size >= this.max) {
      for (const [k, end] of this.until) if (end <= now) this.until.delete(k);
      // Still full: the oldest noted goes (a Map iterates in insertion order).
      for (const k of this.until.keys()) {
        if (this.until.size < this.max) break;
        this.until.delete(k);
      }
    }
    this.until.set(id, endMs);
  }
}
