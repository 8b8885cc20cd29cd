import { describe, expect, it } from "vitest";
import { parseWeeklyArgs, shortestGapMs, type WeeklyCommand } from "../../src/weekly/parse-weekly-args.js";

const DEFAULTS = { cron: "0 9 * * 1", timeZone: "UTC" };
const NOW = new Date("2026-03-04T12:00:00.000Z");
const words = (s: string) => s.split(/\s+/).filter(Boolean);
const parse = (s: string) => parseWeeklyArgs(words(s), DEFAULTS, NOW);

describe("parseWeeklyArgs", () => {
  it.each<[string, WeeklyCommand]>([
    ["", { action: "show" }],
    ["on", { action: "on", cron: "0 9 * * 1", timeZone: "UTC" }],
    ["ON", { action: "on", cron: "0 9 * * 1", timeZone: "UTC" }],
    ["on Europe/Paris", { action: "on", cron: "0 9 * * 1", timeZone: "Europe/Paris" }],
    ["on 30 8 * * 1-5", { action: "on", cron: "30 8 * * 1-5", timeZone: "UTC" }],
    ["on 0 9 * * MON", { action: "on", cron: "0 9 * * MON", timeZone: "UTC" }],
    ["on 0 17 * * 5 America/New_York", { action: "on", cron: "0 17 * * 5", timeZone: "America/New_York" }],
    ["on 0 9 * * MON UTC", { action: "on", cron: "0 9 * * MON", timeZone: "UTC" }],
    ["on monday 09:00 Europe/Berlin", { action: "on", cron: "0 9 * * 1", timeZone: "Europe/Berlin" }],
    ["on fri 5pm", { action: "on", cron: "0 17 * * 5", timeZone: "UTC" }],
    [
      "on weekdays 8:30 America/Los_Angeles",
      { action: "on", cron: "30 8 * * 1-5", timeZone: "America/Los_Angeles" },
    ],
    ["off", { action: "off" }],
    ["now", { action: "now" }],
  ])("%j", (text, command) => {
    expect(parse(text)).toEqual({ ok: true, command });
  });

  it("takes a quoted cron as one word", () => {
    expect(parseWeeklyArgs(["on", "0 9 * * 1", "Asia/Tokyo"], DEFAULTS, NOW)).toEqual({
      ok: true,
      command: { action: "on", cron: "0 9 * * 1", timeZone: "Asia/Tokyo" },
    });
  });

  it.each<[string, RegExp]>([
    ["on Paris/Nowhere", /"Paris\/Nowhere" is not a time zone I know/],
    [
      "on Mars",
      /I could not read "Mars"\. I understood: nothing yet\. For example `\/insight weekly on monday 09:00 Europe\/Berlin`/,
    ],
    ["on fri 5pmm", /I could not read "5pmm"\. I understood: day: Fridays\. For example/],
    ["on 0 9 * *", /"0 9 \* \*" looks like a cron schedule, but a cron has five fields .* this has 4/],
    ["on 0 0 9 * * 1", /a cron has five fields/],
    ["on 61 9 * * 1", /out of range/],
    ["on */5 * * * *", /would post more than once a day/],
    ["on 0 9,17 * * 1", /would post more than once a day/],
    ["off now", /takes nothing after it/],
    ["sometimes", /Use `\/insight weekly on`/],
  ])("%j is refused plainly", (text, message) => {
    const r = parse(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(message);
      expect(r.error).not.toContain("not a five-field cron");
    }
  });

  it("escapes what it echoes back", () => {
    const r = parseWeeklyArgs(["on", "<!channel>/x"], DEFAULTS, NOW);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain("&lt;!channel&gt;");
      expect(r.error).not.toContain("<!channel>");
    }
  });

  it("accepts daily and weekly schedules across a daylight-saving change", () => {
    // Paris moves to summer time on 2026-03-29: one day is 23 hours long.
    const gap = shortestGapMs("0 9 * * *", "Europe/Paris", new Date("2026-03-25T00:00:00.000Z"));
    expect(gap).toBe(23 * 3_600_000);
    expect(
      parseWeeklyArgs(["on", "0", "9", "*", "*", "*", "Europe/Paris"], DEFAULTS, new Date("2026-03-25")).ok,
    ).toBe(true);
    expect(shortestGapMs("0 9 * * 1", "UTC", NOW)).toBe(7 * 86_400_000);
  });
});
