/** The span over which acknowledgements are counted. */
export const PACE_WINDOW_MS = 100;
/**
 * Acknowledgements in one window at which the receiver is busy: 500 a second. A community's
 * steady traffic is well under it (bench:steady's rate rows send 100 and 10 a second); a sender
 * replaying a backlog, or a burst, is over it.
 */
export const BUSY_ACKS = 50;

/** Whether this process's receiver is acknowledging a burst (`AckPace`). */
export interface ReceiverPace {
  busy(): boolean;
}

/**
 * How fast the receiver of this process acknowledges, counted in 100-ms windows (the current one
 * and the last): a process running both the web and worker roles (role `all`) shares one event
 * loop between acknowledging and processing, and its intake pump holds back while the receiver is
 * busy (intake/pump.ts), so that acknowledgements come first. A note is two additions; nothing
 * is kept but two counts.
 */
export class AckPace implements ReceiverPace {
  private window = 0;
  private count = 0;
  private last = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** One delivery acknowledged. */
  note(): void {
    this.roll(Math.floor(this.now() / PACE_WINDOW_MS));
    this.count++;
  }

  /** At least `BUSY_ACKS` acknowledged in the last whole window, or already in this one. */
  busy(): boolean {
    this.roll(Math.floor(this.now() / PACE_WINDOW_MS));
    return this.count >= BUSY_ACKS || this.last >= BUSY_ACKS;
  }

  private roll(window: number): void {
    if (window === this.window) return;
    // A window with no acknowledgement in between counts as empty.
    this.last = window === this.window + 1 ? this.count : 0;
    this.window = window;
    this.count = 0;
  }
}
