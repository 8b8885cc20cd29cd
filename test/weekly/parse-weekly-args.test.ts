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
    ["on 0 9 * * MON", { action: "on", cron: "0 9 * * MON", timeZone: "UTC" }],
    ["on 0 17 * * 5 America/New_York", { action: "on", cron: "0 17 * * 5", timeZone: "America/New_York" }],
    ["on 0 9 * * MON UTC", { action: "on", cron: "0 9 * * MON", timeZone: "UTC" }],
    ["on monday 09:00 Europe/Berlin", { action: "on", cron: "0 9 * * 1", timeZone: "Europe/Berlin" }],
    ["on fri 5pm", { action: "on", cron: "0 17 * * 5", timeZone: "UTC" }],
    [
      "on tuesday 8:30 America/Los_Angeles",
      { action: "on", cron: "30 8 * * 2", timeZone: "America/Los_Angeles" },
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
    ["on */5 * * * *", /`\*\/5 \* \* \* \*` would post it many times a week/],
    ["on 0 9,17 * * 1", /`0 9,17 \* \* 1` would post it 2 times a week/],
    ["on 0 9 1 * *", /A weekly summary goes out once a week: `0 9 1 \* \*` would skip weeks\./],
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

  it("accepts a weekly schedule across a daylight-saving change", () => {
    // Paris moves to summer time on 2026-03-29: that week is an hour short.
    const gap = shortestGapMs("0 9 * * 1", "Europe/Paris", new Date("2026-03-20T00:00:00.000Z"));
    expect(gap).toBe(7 * 86_400_000 - 3_600_000);
    expect(
      parseWeeklyArgs(["on", "0", "9", "*", "*", "1", "Europe/Paris"], DEFAULTS, new Date("2026-03-25")).ok,
    ).toBe(true);
    expect(shortestGapMs("0 9 * * 1", "UTC", NOW)).toBe(7 * 86_400_000);
  });

  it("a weekly summary runs once a week: weekdays, daily and the like are refused with a clear answer", () => {
    const daily =
      "For a daily round-up, use a daily digest: `/insight subscribe &lt;group&gt; --mode digest`.";
    expect(parse("on weekdays 8am")).toEqual({
      ok: false,
      error: `A weekly summary goes out once a week, and each covers the last 7 days: weekdays (Monday to Friday) at 08:00 would post it 5 times a week, repeating the same threads. Name one day, for example \`/insight weekly on monday 09:00 Europe/Berlin\`. ${daily}`,
    });
    expect(parse("on every day at 18:00")).toMatchObject({
      error: expect.stringContaining("every day at 18:00 would post it 7 times a week"),
    });
    expect(parse("on 30 8 * * 1-5")).toMatchObject({
      error: expect.stringContaining("`30 8 * * 1-5` would post it 5 times a week"),
    });
  });

  it("says what it understood when the zone is not one: `on 9am tuesday Mars/Olympus`", () => {
    expect(parse("on 9am tuesday Mars/Olympus")).toEqual({
      ok: false,
      error:
        '"Mars/Olympus" is not a time zone I know (an IANA name such as Europe/Berlin, America/Los_Angeles or UTC). I understood: day: Tuesdays · time: 09:00. For example `/insight weekly on monday 09:00 Europe/Berlin`, `/insight weekly on fri 5pm`, or five cron fields such as `/insight weekly on 0 9 * * 1`.',
    });
    expect(parse("on tuesday 5pmm Mars/Olympus")).toMatchObject({
      error: expect.stringContaining(
        'I could not read "5pmm"; "Mars/Olympus" is not a time zone I know either. I understood: day: Tuesdays.',
      ),
    });
  });

  it("what is left out comes from the defaults given: the schedule's own zone and day when it has one", () => {
    const existing = { cron: "0 8 * * 4", timeZone: "Asia/Tokyo" };
    expect(parseWeeklyArgs(["on", "10am"], existing, NOW)).toEqual({
      ok: true,
      command: { action: "on", cron: "0 10 * * 4", timeZone: "Asia/Tokyo" },
    });
    expect(parseWeeklyArgs(["on", "friday", "UTC"], existing, NOW)).toEqual({
      ok: true,
      command: { action: "on", cron: "0 8 * * 5", timeZone: "UTC" },
    });
  });
});
