import { describe, expect, it } from "vitest";
import {
  dayIndex,
  dayLabel,
  describeDays,
  formatDay,
  startOfDay,
  weekWindow,
} from "../../src/domain/weekly-window.js";

const iso = (ms: number | undefined) => new Date(ms ?? Number.NaN).toISOString();
const HOUR = 3_600_000;

describe("weekWindow for `weekly now`: the last 7 days up to this moment, today included", () => {
  it("Wednesday 15:30 UTC covers Thursday to today, up to now; the week before is the 7 days before", () => {
    const at = Date.parse("2026-03-11T15:30:00.000Z");
    const w = weekWindow(at, "UTC", { untilNow: true });
    expect(w.untilNow).toBe(true);
    expect(iso(w.start)).toBe("2026-03-05T00:00:00.000Z");
    expect(iso(w.end)).toBe("2026-03-11T15:30:00.000Z");
    expect(w.days.at(-1)).toBe("2026-03-11");
    expect(describeDays(w.days)).toBe("Mar 5 – Mar 11, 2026");
    // A thread of this morning is in today's bucket; so is one stamped a moment ahead.
    expect(dayIndex(Date.parse("2026-03-11T08:00:00.000Z"), w.dayStarts)).toBe(6);
    expect(dayIndex(at + 60_000, w.dayStarts)).toBe(6);
    expect(iso(w.prevStart)).toBe("2026-02-26T00:00:00.000Z");
    expect(w.prevDayStarts.at(-1)).toBe(w.start);
    // The rolling last7Days listing covers the whole week: nothing needs the older listing.
    expect(w.listedFrom).toBeLessThan(w.start);
    // The scheduled summary of the same moment keeps the 7 calendar days before today.
    const scheduled = weekWindow(at, "UTC");
    expect(scheduled.untilNow).toBe(false);
    expect(scheduled.days.at(-1)).toBe("2026-03-10");
    expect(iso(scheduled.end)).toBe("2026-03-11T00:00:00.000Z");
  });

  it("in the asker's zone: Tokyo's today starts at 15:00 UTC the day before", () => {
    const w = weekWindow(Date.parse("2026-03-11T01:00:00.000Z"), "Asia/Tokyo", { untilNow: true });
    expect(w.days.at(-1)).toBe("2026-03-11");
    expect(iso(w.dayStarts[6])).toBe("2026-03-10T15:00:00.000Z");
  });
});

describe("weekWindow: the 7 calendar days before the run day, in the schedule's zone", () => {
  it("UTC: Monday 09:00 covers Monday to Sunday, midnight to midnight", () => {
    const w = weekWindow(Date.parse("2026-03-09T09:00:00.000Z"), "UTC");
    expect(iso(w.start)).toBe("2026-03-02T00:00:00.000Z");
    expect(iso(w.end)).toBe("2026-03-09T00:00:00.000Z");
    expect(iso(w.prevStart)).toBe("2026-02-23T00:00:00.000Z");
    expect(w.days).toEqual([
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
    ]);
    expect(w.dayStarts).toHaveLength(8);
    expect(w.prevDayStarts.at(-1)).toBe(w.start);
    expect(iso(w.listedFrom)).toBe("2026-03-02T09:00:00.000Z");
    expect(describeDays(w.days)).toBe("Mar 2 – Mar 8, 2026");
    expect(w.days.map(dayLabel)).toEqual(["Mon 2", "Tue 3", "Wed 4", "Thu 5", "Fri 6", "Sat 7", "Sun 8"]);
  });

  it("Europe/Berlin across the change to summer time: the last day is 23 hours long", () => {
    // Summer time starts Sunday 2026-03-29 at 02:00 local.
    const w = weekWindow(Date.parse("2026-03-30T07:00:00.000Z"), "Europe/Berlin"); // Mon 09:00 CEST
    expect(iso(w.start)).toBe("2026-03-22T23:00:00.000Z"); // Mon 23 00:00 CET
    expect(iso(w.end)).toBe("2026-03-29T22:00:00.000Z"); // Mon 30 00:00 CEST
    const lengths = w.dayStarts.slice(1).map((t, i) => (t - (w.dayStarts[i] ?? 0)) / HOUR);
    expect(lengths).toEqual([24, 24, 24, 24, 24, 24, 23]);
    expect(w.days[6]).toBe("2026-03-29");
  });

  it("America/Los_Angeles across the end of summer time: one day is 25 hours long", () => {
    // Standard time resumes Sunday 2026-11-01 at 02:00 local.
    const w = weekWindow(Date.parse("2026-11-02T17:00:00.000Z"), "America/Los_Angeles"); // Mon 09:00 PST
    expect(iso(w.start)).toBe("2026-10-26T07:00:00.000Z"); // Mon Oct 26 00:00 PDT
    expect(iso(w.end)).toBe("2026-11-02T08:00:00.000Z"); // Mon Nov 2 00:00 PST
    const lengths = w.dayStarts.slice(1).map((t, i) => (t - (w.dayStarts[i] ?? 0)) / HOUR);
    expect(lengths).toEqual([24, 24, 24, 24, 24, 24, 25]);
    expect(describeDays(w.days)).toBe("Oct 26 – Nov 1, 2026");
  });

  it("the run day is the zone's: 00:30 in Berlin is already Monday while UTC is still Sunday", () => {
    const at = Date.parse("2026-03-08T23:30:00.000Z");
    expect(weekWindow(at, "Europe/Berlin").days.at(-1)).toBe("2026-03-08");
    expect(weekWindow(at, "UTC").days.at(-1)).toBe("2026-03-07");
    expect(weekWindow(at, "America/Los_Angeles").days.at(-1)).toBe("2026-03-07");
  });

  it("a day whose midnight a daylight-saving change skips starts at the first instant it has", () => {
    // Santiago moves clocks from 00:00 to 01:00 on 2026-09-06.
    const t = startOfDay({ y: 2026, m: 9, d: 6 }, "America/Santiago");
    expect(iso(t)).toBe("2026-09-06T04:00:00.000Z"); // 01:00 -03
  });

  it("a week across the new year names both years", () => {
    const w = weekWindow(Date.parse("2027-01-04T09:00:00.000Z"), "UTC");
    expect(describeDays(w.days)).toBe("Dec 28, 2026 – Jan 3, 2027");
  });
});

describe("dayIndex", () => {
  const w = weekWindow(Date.parse("2026-03-09T09:00:00.000Z"), "UTC");
  it("places an instant in its calendar day; undefined outside the week", () => {
    expect(dayIndex(w.start, w.dayStarts)).toBe(0);
    expect(dayIndex(Date.parse("2026-03-02T23:59:59.999Z"), w.dayStarts)).toBe(0);
    expect(dayIndex(Date.parse("2026-03-03T00:00:00.000Z"), w.dayStarts)).toBe(1);
    expect(dayIndex(w.end - 1, w.dayStarts)).toBe(6);
    expect(dayIndex(w.end, w.dayStarts)).toBeUndefined();
    expect(dayIndex(w.start - 1, w.dayStarts)).toBeUndefined();
    expect(dayIndex(Number.NaN, w.dayStarts)).toBeUndefined();
  });
});

describe("formatDay", () => {
  it("names a day key", () => {
    expect(formatDay("2026-03-03")).toBe("Tue, Mar 3");
  });
});
