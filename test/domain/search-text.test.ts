import { describe, expect, it } from "vitest";
import { MESSAGE_QUERY_MAX, messageText, searchTextOf } from "../../src/domain/search-text.js";
import { readWatchForm } from "../../src/slack/actions/watch-form.js";

describe("a message's words as a search", () => {
  it("drops Slack's markup: mentions, bare links, emoji codes, formatting; keeps link labels and names", () => {
    expect(
      searchTextOf(
        "*Replicas* lag <@U0SAM|sam> after upgrading :eyes: <https://x.example/docs|the docs> <!here> `0.15`",
      ),
    ).toEqual({ ok: true, text: "Replicas lag sam after upgrading the docs 0.15", cut: false });
    expect(searchTextOf("&gt; quoted &amp; kept <#C123|support>")).toEqual({
      ok: true,
      text: "quoted & kept support",
      cut: false,
    });
  });

  it("has no usable words: an emoji, a link or a single letter", () => {
    expect(searchTextOf(":tada: :eyes:")).toEqual({ ok: false });
    expect(searchTextOf("<https://example.com/a.png>")).toEqual({ ok: false });
    expect(searchTextOf("k")).toEqual({ ok: false });
    expect(searchTextOf("ok")).toMatchObject({ ok: true, text: "ok" });
  });

  it("cuts a long text after a whole word, within the limit", () => {
    const long = `${"replication lag after the upgrade ".repeat(20)}end`;
    const r = searchTextOf(long);
    expect(r.ok && r.cut).toBe(true);
    if (!r.ok) return;
    expect(r.text.length).toBeLessThanOrEqual(MESSAGE_QUERY_MAX);
    expect(r.text.length).toBeGreaterThan(MESSAGE_QUERY_MAX - 40);
    expect(long.startsWith(r.text)).toBe(true);
    expect(long.charAt(r.text.length)).toBe(" ");
    // One very long token is cut inside rather than lost.
    const hash = searchTextOf("x".repeat(400));
    expect(hash).toMatchObject({ ok: true, cut: true, text: "x".repeat(MESSAGE_QUERY_MAX) });
  });

  it("reads the blocks or attachments of a message without text", () => {
    const blocks = [
      {
        type: "rich_text",
        elements: [{ type: "rich_text_section", elements: [{ type: "text", text: "Backups slow" }] }],
      },
    ];
    expect(messageText({ text: "", blocks })).toBe("Backups slow");
    expect(messageText({ attachments: [{ fallback: "Build 812 failed" }] })).toBe("Build 812 failed");
    expect(messageText({ text: "plain", blocks })).toBe("plain");
  });
});

describe("the watch Edit form, read with the command's parsers", () => {
  const v = (fields: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, { value: x as Record<string, unknown> }]));

  it("reads a valid form into words, group, filters, daily time and quiet hours", () => {
    expect(
      readWatchForm(
        v({
          words: { value: 'refund "dark mode"' },
          group: { value: "Lumen DB Support" },
          keywords: { value: "chargeback, late fee" },
          sentiments: { selected_options: [{ value: "negative" }] },
          questions: { selected_option: { value: "unanswered" } },
          min_messages: { value: "3" },
          quiet_from: { selected_time: "22:00" },
          quiet_to: { selected_time: "07:00" },
        }),
      ),
    ).toEqual({
      ok: true,
      words: ["refund", "dark mode"],
      groupRef: "Lumen DB Support",
      filters: {
        sentiments: ["negative"],
        unanswered: true,
        minMessages: 3,
        keywords: ["chargeback", "late fee"],
      },
      daily: undefined,
      quiet: { from: 1320, to: 420 },
    });
  });

  it("puts each error inside its field, in the command's words", () => {
    expect(
      readWatchForm(
        v({
          words: { value: "refund" },
          min_messages: { value: "many" },
          quiet_from: { selected_time: "22:00" },
        }),
      ),
    ).toEqual({
      ok: false,
      errors: {
        min_messages: 'A whole number from 1 to 10,000, like 5 (you typed "many").',
        quiet_to: "Quiet hours need both times: from and until.",
      },
    });
    expect(
      readWatchForm(
        v({
          words: { value: "refund" },
          sentiments: { selected_options: [{ value: "negative" }] },
          exclude_sentiments: { selected_options: [{ value: "negative" }] },
        }),
      ),
    ).toEqual({
      ok: false,
      errors: {
        exclude_sentiments: "negative cannot be both wanted and excluded: remove it from one of the two.",
      },
    });
    expect(
      readWatchForm(
        v({
          words: { value: "refund" },
          daily: { selected_time: "23:00" },
          quiet_from: { selected_time: "22:00" },
          quiet_to: { selected_time: "07:00" },
        }),
      ),
    ).toEqual({
      ok: false,
      errors: { daily: "--daily 23:00 falls inside your quiet hours 22:00–07:00: pick a time outside them." },
    });
    expect(readWatchForm(v({}))).toEqual({
      ok: false,
      errors: { words: "Say what to watch for: some words, a group, or a filter." },
    });
  });
});
