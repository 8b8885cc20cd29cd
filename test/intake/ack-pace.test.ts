import { describe, expect, it } from "vitest";
import { AckPace, BUSY_ACKS, PACE_WINDOW_MS } from "../../src/intake/ack-pace.js";

describe("the receiver's pace of acknowledgements", () => {
  const clocked = (start = 1_000_000) => {
    let t = start;
    return { pace: new AckPace(() => t), at: (ms: number) => (t = start + ms) };
  };

  it("is busy from the acknowledgement that makes 500 a second, and not at a steady 100 a second", () => {
    const { pace, at } = clocked();
    for (let i = 0; i < 1_000; i++) {
      at(i * 10); // 100 a second, for ten seconds
      pace.note();
      expect(pace.busy()).toBe(false);
    }
    const start = 20_000;
    for (let i = 0; i < BUSY_ACKS - 1; i++) {
      at(start + i); // 49 within a window
      pace.note();
    }
    expect(pace.busy()).toBe(false);
    pace.note();
    expect(pace.busy()).toBe(true);
  });

  it("stays busy through the next window, then is quiet once a whole window passes without a burst", () => {
    const { pace, at } = clocked();
    at(0);
    for (let i = 0; i < BUSY_ACKS; i++) pace.note();
    at(PACE_WINDOW_MS + 10);
    expect(pace.busy()).toBe(true);
    pace.note();
    at(2 * PACE_WINDOW_MS + 10);
    expect(pace.busy()).toBe(false);
    // A pause longer than a window forgets the burst at once.
    const later = clocked();
    later.at(0);
    for (let i = 0; i < BUSY_ACKS; i++) later.pace.note();
    later.at(5 * PACE_WINDOW_MS);
    expect(later.pace.busy()).toBe(false);
  });
});
