import { describe, expect, it } from "vitest";
import { parseAlertsArgs } from "../../../src/slack/commands/alerts.js";
import { renderAlert } from "../../../src/slack/render/alert.js";
import { tokenize } from "../../../src/slack/commands/tokenize.js";
import { LIMITS } from "../../../src/slack/render/limits.js";

const parse = (s: string) => parseAlertsArgs(tokenize(s));

describe("parseAlertsArgs", () => {
  it("reads the group and the options; none given means all three, unanswered after 24 h", () => {
    expect(parse('"Lumen DB Support" --unanswered-after 4h --volume-spike')).toEqual({
      ok: true,
      off: false,
      group: "Lumen DB Support",
      unansweredAfterHours: 4,
      negativeSpike: false,
      volumeSpike: true,
    });
    expect(parse("support --unanswered-after=12")).toMatchObject({ unansweredAfterHours: 12 });
    expect(parse("support")).toMatchObject({
      unansweredAfterHours: 24,
      negativeSpike: true,
      volumeSpike: true,
    });
    expect(parse("off support team")).toEqual({ ok: true, off: true, group: "support team" });
  });
  it("says what it could not read", () => {
    expect(parse("support --unanswered-after 0h")).toMatchObject({ ok: false });
    expect(parse("support --unanswered-after 999h")).toMatchObject({ ok: false });
    expect(parse("support --loud")).toEqual({ ok: false, problem: "there is no `--loud` option for alerts" });
    expect(parse("--negative-spike")).toEqual({ ok: false, problem: "name the chat group to watch" });
    expect(parse("off")).toMatchObject({ ok: false });
  });
});

describe("renderAlert", () => {
  it("escapes community text, links cards, and stays within Block Kit limits", () => {
    const threads = Array.from({ length: 120 }, (_, i) => ({
      id: `t${i}`,
      title: i === 0 ? "<!here> refund <https://evil.example|now>" : `Thread ${i} ${"x".repeat(200)}`,
      firstMessageDate: "2026-11-24T10:00:00.000Z",
      sentiment: "negative",
      isQuestionLed: true,
      questionResponseStatus: "unanswered",
    }));
    const { text, blocks } = renderAlert({
      kind: "negative",
      settings: { groupId: "g1", groupName: "Support & Co" },
      permalinks: new Map([["t0", "https://team.slack.com/archives/C1/p1"]]),
      threads,
      negative: 120,
      known: 150,
      share: 0.8,
      baseShare: 0.1,
      baseDays: 28,
    });
    expect(text).toBe(
      "Negative spike in Support &amp; Co: 120 of 150 threads in the last 24 hours are negative (80%, against 10% over the previous 28 days)",
    );
    const shown = JSON.stringify(blocks, (k, v: unknown) => (k === "value" ? undefined : v));
    expect(shown).toContain(":rotating_light: Negative spike in *Support &amp; Co*");
    expect(shown).toContain(
      "<https://team.slack.com/archives/C1/p1|&lt;!here&gt; refund &lt;https://evil.example|now&gt;>",
    );
    expect(shown).not.toContain("<!here>");
    expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(LIMITS.messageBlocksJson);
    expect(JSON.stringify(blocks.at(-1))).toMatch(/and \d+ more threads/);
  });

  it("a volume spike says the usual rate and over how many days it was learned", () => {
    const { text } = renderAlert({
      kind: "volume",
      settings: { groupId: "g2", groupName: "Launch chatter" },
      permalinks: new Map(),
      threads: [],
      lastHour: 7,
      usualPerHour: 1,
      baseDays: 9,
    });
    expect(text).toBe(
      "Volume spike in Launch chatter: 7 new threads in the last hour; usually 1.0 an hour (over the previous 9 days)",
    );
  });
});
