import { describe, expect, it } from "vitest";
import { flushPeriod, periodStart } from "../../src/digest/flush.js";
import type { DigestJob } from "../../src/jobs/job-types.js";

// The parts of a BullMQ job the flush reads to know which period it posts.
const job = (data: DigestJob, prevMillis?: number) => ({
  id: "job-1",
  data,
  opts: prevMillis === undefined ? {} : { prevMillis },
  timestamp: Date.parse("2026-03-13T07:59:58Z"),
});
const TICK = Date.parse("2026-03-13T08:00:00Z"); // 09:00 in Berlin

describe("which period a digest job flushes", () => {
  it("a scheduled daily digest covers since the previous 09:00 in the channel's zone", () => {
    const j = job({ channelId: "C1", trigger: "schedule", every: "24h", timeZone: "Europe/Berlin" }, TICK);
    expect(new Date(periodStart(j) ?? 0).toISOString()).toBe("2026-03-12T08:00:00.000Z");
    expect(flushPeriod(j)).toBe(`24h-${TICK}`);
  });

  it("a 4-hour one since the tick 4 hours before", () => {
    const j = job({ channelId: "C1", trigger: "schedule", every: "4h", timeZone: "Europe/Berlin" }, TICK);
    expect(new Date(periodStart(j) ?? 0).toISOString()).toBe("2026-03-13T04:00:00.000Z");
  });

  it("digest now has no period: its since is its oldest thread's", () => {
    const j = job({ channelId: "C1", trigger: "now", requestedBy: "U1" });
    expect(periodStart(j)).toBeUndefined();
    expect(flushPeriod(j)).toBe("now-job-1");
  });
});
