import { describe, expect, it } from "vitest";
import {
  formatQuietWindow,
  instantAtLocal,
  isInQuietWindow,
  localMinutesAt,
  nextDailyAt,
  parseClockTime,
  parseQuietWindow,
  quietWindowEnd,
  tomorrowAt,
} from "../../src/domain/local-time.js";
import { reminderId, remindAt } from "../../src/domain/reminder.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const NIGHT = { from: 22 * 60, to: 7 * 60 };

describe("clock times as people type them", () => {
  it("reads HH:MM, H:MM, 07h30, 9am and 5:30pm; refuses a bare hour and impossible times", () => {
    expect(parseClockTime("22:00")).toBe(1320);
    expect(parseClockTime("7:30")).toBe(450);
    expect(parseClockTime("07h30")).toBe(450);
    expect(parseClockTime("9am")).toBe(540);
    expect(parseClockTime("5:30pm")).toBe(1050);
    expect(parseClockTime("12am")).toBe(0);
    expect(parseClockTime("9")).toBeUndefined();
    expect(parseClockTime("24:00")).toBeUndefined();
    expect(parseClockTime("10:60")).toBeUndefined();
    expect(parseClockTime("13pm")).toBeUndefined();
  });

  it("reads a window with a hyphen, an en dash or words; refuses an empty one", () => {
    expect(parseQuietWindow("22:00-07:00")).toEqual(NIGHT);
    expect(parseQuietWindow("22:00 – 07:00")).toEqual(NIGHT);
    expect(parseQuietWindow("10pm to 7am")).toEqual(NIGHT);
    expect(parseQuietWindow("22:00-22:00")).toBeUndefined();
    expect(parseQuietWindow("22:00")).toBeUndefined();
    expect(formatQuietWindow(NIGHT)).toBe("22:00–07:00");
  });
});

describe("quiet hours in the person's own zone", () => {
  it("across midnight: 23:30 and 06:59 are quiet, 07:00 and 21:59 are not", () => {
    const z = "UTC";
    expect(isInQuietWindow(at("2026-03-13T23:30:00Z"), NIGHT, z)).toBe(true);
    expect(isInQuietWindow(at("2026-03-14T06:59:00Z"), NIGHT, z)).toBe(true);
    expect(isInQuietWindow(at("2026-03-14T07:00:00Z"), NIGHT, z)).toBe(false);
    expect(isInQuietWindow(at("2026-03-13T21:59:00Z"), NIGHT, z)).toBe(false);
    const day = { from: 9 * 60, to: 17 * 60 };
    expect(isInQuietWindow(at("2026-03-13T12:00:00Z"), day, z)).toBe(true);
    expect(isInQuietWindow(at("2026-03-13T17:00:00Z"), day, z)).toBe(false);
  });

  it("one instant, two people across a time-zone boundary: quiet for Berlin, not for New York", () => {
    const t = at("2026-03-13T22:30:00Z"); // 23:30 in Berlin, 18:30 in New York
    expect(localMinutesAt(t, "Europe/Berlin")).toBe(23 * 60 + 30);
    expect(localMinutesAt(t, "America/New_York")).toBe(18 * 60 + 30);
    expect(isInQuietWindow(t, NIGHT, "Europe/Berlin")).toBe(true);
    expect(isInQuietWindow(t, NIGHT, "America/New_York")).toBe(false);
    // Berlin's quiet hours end at 07:00 Berlin time the next morning.
    expect(iso(quietWindowEnd(t, NIGHT, "Europe/Berlin"))).toBe("2026-03-14T06:00:00.000Z");
    // In the small hours the window ends the same morning.
    expect(iso(quietWindowEnd(at("2026-03-14T02:00:00Z"), NIGHT, "Europe/Berlin"))).toBe(
      "2026-03-14T06:00:00.000Z",
    );
  });

  it("across daylight saving: the window keeps its wall-clock hours; the night clocks spring forward is an hour shorter", () => {
    // Berlin springs forward on 2026-03-29 at 02:00 (CET → CEST).
    const before = at("2026-03-28T22:30:00Z"); // 23:30 CET
    expect(isInQuietWindow(before, NIGHT, "Europe/Berlin")).toBe(true);
    const end = quietWindowEnd(before, NIGHT, "Europe/Berlin");
    expect(iso(end)).toBe("2026-03-29T05:00:00.000Z"); // 07:00 CEST
    expect(end - before).toBe(6.5 * 3_600_000);
    expect(isInQuietWindow(at("2026-03-29T04:59:00Z"), NIGHT, "Europe/Berlin")).toBe(true);
    expect(isInQuietWindow(at("2026-03-29T05:00:00Z"), NIGHT, "Europe/Berlin")).toBe(false);
    // And back on 2026-10-25: 07:00 CET is 06:00 UTC again.
    expect(iso(quietWindowEnd(at("2026-10-24T21:00:00Z"), NIGHT, "Europe/Berlin"))).toBe(
      "2026-10-25T06:00:00.000Z",
    );
  });

  it("a wall time a change skips is the first instant after the gap; a repeated one the earlier", () => {
    expect(iso(instantAtLocal({ y: 2026, m: 3, d: 29 }, 150, "Europe/Berlin"))).toBe(
      "2026-03-29T01:30:00.000Z",
    );
    expect(iso(instantAtLocal({ y: 2026, m: 10, d: 25 }, 150, "Europe/Berlin"))).toBe(
      "2026-10-25T00:30:00.000Z",
    );
    expect(iso(instantAtLocal({ y: 2026, m: 3, d: 8 }, 150, "America/New_York"))).toBe(
      "2026-03-08T07:30:00.000Z",
    );
  });
});

describe("the next daily time", () => {
  it("is today's when still ahead, else tomorrow's, in the person's zone", () => {
    expect(iso(nextDailyAt(at("2026-03-13T07:00:00Z"), 9 * 60, "Europe/Berlin"))).toBe(
      "2026-03-13T08:00:00.000Z",
    );
    expect(iso(nextDailyAt(at("2026-03-13T08:00:00Z"), 9 * 60, "Europe/Berlin"))).toBe(
      "2026-03-14T08:00:00.000Z",
    );
    // The same instant: 09:00 in New York is still ahead (it is 03:00 there).
    expect(iso(nextDailyAt(at("2026-03-13T08:00:00Z"), 9 * 60, "America/New_York"))).toBe(
      "2026-03-13T13:00:00.000Z",
    );
  });

  it("keeps 09:00 across the spring change (a 23-hour day)", () => {
    const first = nextDailyAt(at("2026-03-28T09:00:00Z"), 9 * 60, "Europe/Berlin");
    expect(iso(first)).toBe("2026-03-29T07:00:00.000Z");
    expect(first - at("2026-03-28T08:00:00Z")).toBe(23 * 3_600_000);
  });
});

describe("remind me later", () => {
  const now = at("2026-03-13T22:30:40Z");
  it("in 1 hour and in 4 hours, to the minute; tomorrow at 9:00 in the presser's zone", () => {
    expect(iso(remindAt("1h", now, "UTC"))).toBe("2026-03-13T23:30:00.000Z");
    expect(iso(remindAt("4h", now, "UTC"))).toBe("2026-03-14T02:30:00.000Z");
    // 23:30 in Berlin: tomorrow is the 14th there; 17:30 in New York: the 14th too.
    expect(iso(remindAt("tomorrow", now, "Europe/Berlin"))).toBe("2026-03-14T08:00:00.000Z");
    expect(iso(remindAt("tomorrow", now, "America/New_York"))).toBe("2026-03-14T13:00:00.000Z");
    // 01:30 on the 14th in Berlin is still the 13th in New York.
    const late = at("2026-03-14T00:30:00Z");
    expect(iso(tomorrowAt(late, 540, "Europe/Berlin"))).toBe("2026-03-15T08:00:00.000Z");
    expect(iso(tomorrowAt(late, 540, "America/New_York"))).toBe("2026-03-14T13:00:00.000Z");
  });

  it("one id per card and minute: a double click is one reminder", () => {
    const a = reminderId({ dueAtMs: remindAt("1h", now, "UTC"), channelId: "C1", cardTs: "1.2" });
    const b = reminderId({ dueAtMs: remindAt("1h", now + 5_000, "UTC"), channelId: "C1", cardTs: "1.2" });
    expect(a).toBe(b);
    expect(reminderId({ dueAtMs: remindAt("4h", now, "UTC"), channelId: "C1", cardTs: "1.2" })).not.toBe(a);
  });
});
