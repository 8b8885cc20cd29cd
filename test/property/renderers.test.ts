import { SLACK_DATE_TOKEN } from "../slack/render/walk.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  messageSchema,
  threadEventSchema,
  threadSchema,
  type Message,
  type Thread,
} from "../../src/insight/schemas.js";
import { INSIGHT_ERROR_CODES, InsightError } from "../../src/insight/errors.js";
import { groupOutcome } from "../../src/domain/weekly-report.js";
import { weekStats } from "../../src/domain/weekly-stats.js";
import { weekWindow } from "../../src/domain/weekly-window.js";
import { buildThreadDigest } from "../../src/domain/thread-digest.js";
import type { ViewPayload } from "../../src/slack/client.js";
import { replyForError } from "../../src/slack/commands/error-replies.js";
import { renderGroups } from "../../src/slack/commands/groups.js";
import { renderMessagesModal } from "../../src/slack/render/messages-modal.js";
import { renderSearchResults } from "../../src/slack/render/search-results.js";
import { renderSharedResult } from "../../src/slack/render/shared-result.js";
import { renderThreadDigest } from "../../src/slack/render/thread-digest.js";
import { renderThreadList } from "../../src/slack/render/thread-list.js";
import { renderWeeklyReport } from "../../src/slack/render/weekly-summary.js";
import { checkMessageBlocks, MAX_MESSAGE_TEXT_CHARS } from "../../dev/slack-standin/block-limits.js";
import { hostileText, isoDate, rawThread } from "./arbitraries.js";

const NOW = new Date("2026-03-05T12:00:00Z");

/** Every `text` string in a message or view (plain_text and mrkdwn alike), and the fallback. */
function texts(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) texts(x, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "text" && typeof x === "string") out.push(x);
      else texts(x, out);
    }
  }
  return out;
}

const LIVE_TOKEN = /<[!@#]|<[a-z][a-z0-9+.-]*:/i;
const BROADCAST = /(^|[^\p{L}\p{N}_])@(channel|here|everyone)\b/iu;

/** No mention, broadcast or disguised link in anything Slack would show (`allow`: mentions we put there ourselves). */
function expectInert(v: unknown, allow: string[] = []): void {
  for (const raw of texts(v)) {
    const t = allow.reduce((acc, a) => acc.split(a).join(""), raw.replace(SLACK_DATE_TOKEN, ""));
    expect(t, `live token in ${JSON.stringify(raw.slice(0, 300))}`).not.toMatch(LIVE_TOKEN);
    expect(t, `broadcast word in ${JSON.stringify(raw.slice(0, 300))}`).not.toMatch(BROADCAST);
  }
}

/** What chat.postMessage would accept: the stand-in Slack's limit checks, and the fallback's length. */
function expectPostable(m: { text: string; blocks: unknown[] }): void {
  const verdict = checkMessageBlocks(m.blocks);
  expect(verdict.ok ? "ok" : `${verdict.error}: ${verdict.messages.join("; ")}`).toBe("ok");
  expect(m.text.length).toBeLessThanOrEqual(MAX_MESSAGE_TEXT_CHARS);
  expect(m.text.length).toBeGreaterThan(0);
}

/** What views.open accepts: 100 blocks, each within its limits, a title of 24 characters. */
function expectOpenable(view: ViewPayload): void {
  const blocks = Array.isArray(view.blocks) ? view.blocks : [];
  expect(blocks.length).toBeLessThanOrEqual(100);
  for (const b of blocks) {
    const verdict = checkMessageBlocks([b]);
    expect(verdict.ok ? "ok" : verdict.messages.join("; ")).toBe("ok");
  }
  for (const k of ["title", "close", "submit"] as const) {
    const t = (view[k] as { text?: string } | undefined)?.text;
    if (t !== undefined) expect(t.length).toBeLessThanOrEqual(24);
  }
  expect(String(view.private_metadata ?? "").length).toBeLessThanOrEqual(3000);
}

const thread = rawThread.map((r): Thread => threadSchema.parse(r));
const message = fc
  .record(
    {
      id: fc.string({ minLength: 1, maxLength: 20 }),
      messageDate: isoDate,
      messageText: fc.oneof(hostileText(40), fc.constant(null)),
      isSystemMessage: fc.boolean(),
      isBotMessage: fc.boolean(),
      authorInfo: fc.record(
        { id: fc.string(), handle: hostileText(3), fullName: hostileText(3) },
        { requiredKeys: [] },
      ),
      reactions: fc.array(fc.record({ emoji: hostileText(2), count: fc.nat(10_000) }), { maxLength: 30 }),
      chatThreadSummary: fc.record({ id: fc.string(), title: hostileText(5) }, { requiredKeys: [] }),
      quotedMessageText: hostileText(20),
      quotedMessageAuthor: hostileText(3),
    },
    { requiredKeys: ["id"] },
  )
  .map((r): Message => messageSchema.parse(r));

const RUNS = { numRuns: 150 };

describe("renderers: any input stays within Block Kit limits and inert", () => {
  it("thread digests", () => {
    const payload = fc.record({
      communityId: fc.string({ minLength: 1 }),
      timestamp: isoDate.filter((d) => !Number.isNaN(Date.parse(d))),
      threadId: fc.string({ minLength: 1 }),
      groupId: fc.string({ minLength: 1 }),
      groupName: hostileText(5),
      title: hostileText(),
      summary: hostileText(40),
      participantCount: fc.nat(),
      messageCount: fc.nat(),
    });
    fc.assert(
      fc.property(
        payload,
        fc.option(thread, { nil: undefined }),
        fc.constantFrom("created", "updated"),
        (p, listing, action) => {
          const event = threadEventSchema.parse({
            webhookType: "chatthread-crud",
            actionType: action,
            payload: p,
          });
          const l = listing ? { ...listing, id: p.threadId } : undefined;
          const m = renderThreadDigest(buildThreadDigest(event, l), { now: NOW });
          expectPostable(m);
          expectInert(m);
        },
      ),
      RUNS,
    );
  });

  it("thread listings", () => {
    const groups = fc.array(
      fc.tuple(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ maxLength: 40 })),
      { minLength: 1, maxLength: 20 },
    );
    fc.assert(
      fc.property(
        groups,
        fc.array(thread, { maxLength: 12 }),
        fc.integer({ min: 1, max: 500 }),
        hostileText(4),
        (g, threads, p, name) => {
          const m = renderThreadList({
            state: { r: "last7Days", p, i: g.length - 1, g },
            groupName: name,
            result: { ok: true, threads, pagination: { page: p, limit: 8, total: 9_999, totalPages: p + 1 } },
          });
          expectPostable(m);
          expectInert(m);
        },
      ),
      RUNS,
    );
  });

  it("search results", () => {
    const threadHit = fc.record({
      kind: fc.constant("thread" as const),
      id: fc.string({ minLength: 1, maxLength: 30 }),
      title: hostileText(),
      summary: fc.option(hostileText(40), { nil: undefined }),
      score: fc.option(fc.double(), { nil: undefined }),
      raw: fc.constant({}),
      groupName: hostileText(3),
      groupId: fc.string({ minLength: 1, maxLength: 30 }),
    });
    const messageHit = fc.record({
      kind: fc.constant("message" as const),
      id: fc.string({ minLength: 1, maxLength: 30 }),
      text: hostileText(40),
      threadId: fc.option(fc.string(), { nil: undefined }),
      threadTitle: fc.option(hostileText(5), { nil: undefined }),
      author: fc.option(hostileText(3), { nil: undefined }),
      date: fc.option(isoDate, { nil: undefined }),
      score: fc.option(fc.double(), { nil: undefined }),
      raw: fc.constant({}),
      groupName: hostileText(3),
      groupId: fc.string({ minLength: 1, maxLength: 30 }),
    });
    fc.assert(
      fc.property(
        hostileText(),
        fc.array(fc.record({ id: fc.string({ minLength: 1 }), name: hostileText(3) }), { maxLength: 8 }),
        fc.array(threadHit, { maxLength: 12 }),
        fc.array(messageHit, { maxLength: 12 }),
        (query, groups, threads, messages) => {
          const m = renderSearchResults({ query, groups, threads, messages, failures: [] });
          expectPostable(m);
          expectInert(m);
        },
      ),
      RUNS,
    );
  });

  it("a shared search result (the sharer's own mention is the only one)", () => {
    const share = fc.record(
      {
        k: fc.constantFrom("thread" as const, "message" as const),
        gn: hostileText(3).map((s) => s.slice(0, 200)),
        ti: hostileText(5).map((s) => s.slice(0, 300)),
        tx: hostileText(30).map((s) => s.slice(0, 2000)),
        a: hostileText(3).map((s) => s.slice(0, 200)),
        d: isoDate,
      },
      { requiredKeys: ["k", "gn", "tx"] },
    );
    fc.assert(
      fc.property(share, (s) => {
        const m = renderSharedResult(s, "U0SHARER");
        expectPostable(m);
        expectInert(m, ["<@U0SHARER>"]);
      }),
      RUNS,
    );
  });

  it("the messages modal", () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 15 }),
        hostileText(5),
        fc.integer({ min: 1, max: 99 }),
        (messages, title, page) => {
          const view = renderMessagesModal({
            groupId: "g1",
            threadId: "t1",
            title,
            page,
            result: { ok: true, messages, pagination: { page, limit: 15, total: 5_000, totalPages: 400 } },
          });
          expectOpenable(view);
          expectInert(view);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("groups", () => {
    const community = fc.record({
      id: fc.string({ minLength: 1 }),
      name: hostileText(3),
      groups: fc.oneof(
        fc.array(fc.record({ id: fc.string({ minLength: 1 }), name: hostileText(3) }), { maxLength: 80 }),
        // The error line is the app's own reply for a failure, not community text.
        fc.constantFrom(...INSIGHT_ERROR_CODES).map((code) => ({
          error: replyForError(new InsightError(code, "x", {}), "this community's chat groups"),
        })),
      ),
    });
    fc.assert(
      fc.property(fc.array(community, { maxLength: 10 }), (cs) => {
        const m = renderGroups(cs);
        expectPostable(m);
        expectInert(m);
      }),
      { numRuns: 100 },
    );
  });

  it("weekly summaries", () => {
    const window = weekWindow(NOW, "Europe/Paris");
    const inWeek = fc
      .integer({ min: window.start, max: window.end - 1 })
      .map((ms) => new Date(ms).toISOString());
    const weekThread = fc
      .tuple(rawThread, inWeek)
      .map(([r, last]): Thread => threadSchema.parse({ ...r, lastMessageDate: last }));
    const group = fc.record({
      id: fc.string({ minLength: 1, maxLength: 20 }),
      name: hostileText(4),
      threads: fc.array(weekThread, { maxLength: 40 }),
    });
    fc.assert(
      fc.property(fc.array(group, { maxLength: 14 }), (groups) => {
        const m = renderWeeklyReport({
          channelId: "C1",
          window,
          timeZone: "Europe/Paris",
          groups: groups.map((g) =>
            groupOutcome({
              groupId: g.id,
              groupName: g.name,
              stats: weekStats(g.threads, { dayStarts: window.dayStarts }),
              previous: undefined,
              days: window.days,
            }),
          ),
        });
        // One message per channel, however many groups it follows.
        expectPostable(m);
        expectInert(m);
      }),
      { numRuns: 60 },
    );
  });
});
