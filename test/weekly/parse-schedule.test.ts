import { CronExpressionParser } from "cron-parser";
import { describe, expect, it } from "vitest";
import { describeUnderstood, parseSchedule, readTime } from "../../src/weekly/parse-schedule.js";

const DEFAULTS = { cron: "0 9 * * 1", timeZone: "UTC" };
const parse = (s: string, d = DEFAULTS) => parseSchedule(s.split(/\s+/).filter(Boolean), d);

/** The next firing of a parsed schedule, read back in its own zone: what people will see. */
function nextLocal(s: string, from = "2026-03-04T12:00:00.000Z"): string {
  const r = parse(s);
  if (!r.ok) throw new Error(r.problem);
  const next = CronExpressionParser.parse(r.cron, { tz: r.timeZone, currentDate: new Date(from) }).next();
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: r.timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(next.getTime());
}

describe("readTime", () => {
  it.each<[string, number | undefined]>([
    ["09:00", 540],
    ["9", 540],
    ["9am", 540],
    ["5pm", 1020],
    ["5:30pm", 1050],
    ["12am", 0],
    ["12pm", 720],
    ["17h", 1020],
    ["17h30", 1050],
    ["noon", 720],
    ["midnight", 0],
    ["24:00", undefined],
    ["9:75", undefined],
    ["13pm", undefined],
    ["soon", undefined],
  ])("%s", (word, minutes) => {
    expect(readTime(word)).toBe(minutes);
  });
});

describe("parseSchedule: plain words", () => {
  it.each<[string, string, string]>([
    ["monday 09:00 Europe/Berlin", "0 9 * * 1", "Europe/Berlin"],
    ["fri 5pm", "0 17 * * 5", "UTC"],
    ["every friday at 5 pm America/Los_Angeles", "0 17 * * 5", "America/Los_Angeles"],
    ["Tuesdays 8:30 Asia/Tokyo", "30 8 * * 2", "Asia/Tokyo"],
    ["sun noon Australia/Sydney", "0 12 * * 0", "Australia/Sydney"],
    ["weekdays 8am", "0 8 * * 1-5", "UTC"],
    ["every day at 18:00 europe/berlin", "0 18 * * *", "Europe/Berlin"],
    ["thurs", "0 9 * * 4", "UTC"], // the default's time
    ["7pm", "0 19 * * 1", "UTC"], // the default's day
    ["Europe/Paris", "0 9 * * 1", "Europe/Paris"],
    ["", "0 9 * * 1", "UTC"],
  ])("%j → %s in %s", (text, cron, timeZone) => {
    expect(parse(text)).toMatchObject({ ok: true, cron, timeZone });
  });

  it("fires when people meant, in the zone they named", () => {
    expect(nextLocal("monday 09:00 Europe/Berlin")).toBe("Mon 09:00");
    expect(nextLocal("fri 5pm America/Los_Angeles")).toBe("Fri 17:00");
    expect(nextLocal("sat 23:30 Asia/Kolkata")).toBe("Sat 23:30");
    // Across Berlin's change to summer time (2026-03-29): still 09:00 local.
    expect(nextLocal("monday 09:00 Europe/Berlin", "2026-03-28T00:00:00.000Z")).toBe("Mon 09:00");
  });

  it("takes missing parts from a simple default schedule", () => {
    expect(parse("fri", { cron: "30 7 * * 1", timeZone: "Europe/Berlin" })).toMatchObject({
      ok: true,
      cron: "30 7 * * 5",
      timeZone: "Europe/Berlin",
      understood: { days: "Fridays", time: "07:30" },
    });
  });
});

describe("parseSchedule: five cron fields, as before", () => {
  it.each<[string, string, string]>([
    ["0 9 * * 1", "0 9 * * 1", "UTC"],
    ["30 8 * * 1-5 America/New_York", "30 8 * * 1-5", "America/New_York"],
    ["0 9 * * MON UTC", "0 9 * * MON", "UTC"],
  ])("%j", (text, cron, timeZone) => {
    expect(parse(text)).toMatchObject({ ok: true, cron, timeZone });
  });
});

describe("parseSchedule: what it did not understand", () => {
  it("names the words it could not read and what it understood", () => {
    const r = parse("fri 5pmm Europe/Berlin");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.unread).toEqual(["5pmm"]);
    expect(r.problem).toBe('I could not read "5pmm"');
    expect(describeUnderstood(r.understood)).toBe("day: Fridays · time zone: Europe/Berlin");
  });

  it("an unknown zone is named as such", () => {
    const r = parse("monday 9am Europe/Springfield");
    expect(r).toMatchObject({ ok: false, unread: ["Europe/Springfield"] });
    if (!r.ok) expect(r.problem).toContain("is not a time zone I know");
  });

  it("a cron with four fields or an out-of-range field is explained without jargon", () => {
    const four = parse("0 9 * *");
    expect(four.ok).toBe(false);
    if (!four.ok) expect(four.problem).toContain("a cron has five fields");
    const range = parse("61 9 * * 1");
    expect(range.ok).toBe(false);
    if (!range.ok) expect(range.problem).toContain("out of range");
  });

  it("two days or two times are not silently merged", () => {
    const r = parse("monday friday 9am");
    expect(r).toMatchObject({ ok: false, unread: ["friday"] });
  });
});
