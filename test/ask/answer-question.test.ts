import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { answerQuestion, NOT_ANSWERING, type AnswerDeps } from "../../src/ask/answer-question.js";
import { CommunityReader } from "../../src/ask/community-reader.js";
import { readTimeRange, type AskRange } from "../../src/ask/time-range.js";
import type { AskAnswer, AskQuestion } from "../../src/ask/types.js";
import { questionStatusLabel, sentimentLabel } from "../../src/domain/sentiment.js";
import { InsightClient } from "../../src/insight/client.js";
import type { Thread } from "../../src/insight/schemas.js";
import { silentLogger } from "../../src/log.js";

/*
 * Answers built from the emulator's seeded community, each figure checked against what the
 * service's own listing and search say when read in full (through the same API, independently
 * of the reader's bounded, early-stopping walk).
 */

const NOW = Date.parse("2025-11-26T15:00:00Z");
const CLOCK = { now: NOW, timeZone: "Europe/Berlin" };
const SUPPORT = { id: SEED.groups.support, name: "Lumen DB Support" };
const RIDES = { id: SEED.groups.rides, name: "Saturday Rides" };

function range(words: string): AskRange {
  const r = readTimeRange(words, CLOCK);
  if (r.kind !== "range") throw new Error(words);
  return r.range;
}

const question = (q: Partial<AskQuestion> & Pick<AskQuestion, "range">): AskQuestion => ({
  groups: [SUPPORT],
  scope: "named",
  unanswered: false,
  questionsOnly: false,
  ...q,
});

describe("answerQuestion: figures from the service's listings and search", () => {
  let emu: Emulator;
  let client: InsightClient;
  let deps: AnswerDeps;
  const reported: unknown[] = [];
  beforeAll(async () => {
    emu = await startEmulator({ now: () => new Date(NOW) });
    client = new InsightClient({
      baseUrl: emu.baseUrl,
      apiKey: emu.apiKey,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    deps = {
      reader: new CommunityReader(client, { now: () => NOW, cacheMs: 0 }),
      reportInsightError: async (err) => void reported.push(err),
      logger: silentLogger,
    };
  });
  afterEach(() => emu.faults.clear());
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  /** The whole listing of a group, every page, as a reader of the API sees it. */
  async function listing(groupId: string): Promise<Thread[]> {
    const out: Thread[] = [];
    for await (const t of client.threads(groupId, { range: "allTime" })) out.push(t);
    return out;
  }
  /** Threads a search finds (thread hits, and the threads of message hits), every page. */
  async function searched(groupId: string, text: string): Promise<Set<string>> {
    const ids = new Set<string>();
    for (let page = 1; ; page++) {
      const r = await client.search(groupId, text, { page, limit: 100 });
      for (const t of r.threads) ids.add(t.id);
      for (const m of r.messages) if (m.threadId) ids.add(m.threadId);
      if (r.threads.length + r.messages.length < 100) return ids;
    }
  }
  const inside = (t: Thread, w: { from: number; to: number }) => {
    const at = Date.parse(t.lastMessageDate ?? "");
    return at >= w.from && at <= w.to;
  };
  const fold = (ts: Thread[]) => ({
    threads: ts.length,
    messages: ts.reduce((n, t) => n + (t.messageCount ?? 0), 0),
    negative: ts.filter((t) => sentimentLabel(t.sentiment).tone === "negative").length,
    positive: ts.filter((t) => sentimentLabel(t.sentiment).tone === "positive").length,
    unanswered: ts.filter(
      (t) => t.isQuestionLed && questionStatusLabel(t.questionResponseStatus).status !== "answered",
    ).length,
  });
  const figures = (a: AskAnswer) => ({
    threads: a.current.threads,
    messages: a.current.messages,
    negative: a.current.tones.negative,
    positive: a.current.tones.positive,
    unanswered: a.current.unanswered,
  });
  async function answer(q: AskQuestion): Promise<AskAnswer> {
    const r = await answerQuestion(deps, q);
    if (!r.ok) throw new Error(r.reply);
    return r.answer;
  }

  it("counts the period's threads, messages, sentiment and unanswered questions, and the period before", async () => {
    const r = range("last 30 days");
    const all = await listing(SUPPORT.id);
    const a = await answer(question({ range: r }));
    const now = all.filter((t) => inside(t, r));
    expect(now.length).toBeGreaterThan(5);
    expect(figures(a)).toEqual(fold(now));
    expect(a.previous.threads).toBe(all.filter((t) => inside(t, r.previous)).length);
    expect(a.current.tones).toEqual({
      positive: now.filter((t) => sentimentLabel(t.sentiment).tone === "positive").length,
      neutral: now.filter((t) => sentimentLabel(t.sentiment).tone === "neutral").length,
      mixed: now.filter((t) => sentimentLabel(t.sentiment).tone === "mixed").length,
      negative: now.filter((t) => sentimentLabel(t.sentiment).tone === "negative").length,
      unknown: now.filter((t) => sentimentLabel(t.sentiment).tone === "unknown").length,
    });
    // Busiest first when nothing narrower is asked.
    const counts = a.threads.map((t) => t.thread.messageCount ?? 0);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
  });

  it("narrows to a topic by the service's search, best match first", async () => {
    const r = range("last 3 months");
    const [all, about] = await Promise.all([listing(SUPPORT.id), searched(SUPPORT.id, "crash")]);
    const a = await answer(question({ range: r, topic: "crash" }));
    const now = all.filter((t) => about.has(t.id) && inside(t, r));
    expect(now.length).toBeGreaterThan(0);
    expect(figures(a)).toEqual(fold(now));
    expect(a.previous.threads).toBe(all.filter((t) => about.has(t.id) && inside(t, r.previous)).length);
    expect(a.threads[0]?.thread.title).toMatch(/^Crash on startup/);
  });

  it("narrows to a feeling and to unanswered questions with the grammar the commands share", async () => {
    const r = range("last 3 months");
    const all = (await listing(SUPPORT.id)).filter((t) => inside(t, r));
    const negative = await answer(question({ range: r, tone: "negative" }));
    expect(figures(negative)).toEqual(
      fold(all.filter((t) => sentimentLabel(t.sentiment).tone === "negative")),
    );
    const open = await answer(question({ range: r, unanswered: true }));
    const waiting = all.filter(
      (t) => t.isQuestionLed && questionStatusLabel(t.questionResponseStatus).status !== "answered",
    );
    expect(figures(open)).toEqual(fold(waiting));
    // Waiting longest first.
    const lasts = open.threads.map((t) => Date.parse(t.thread.lastMessageDate ?? ""));
    expect(lasts).toEqual([...lasts].sort((x, y) => x - y));
  });

  it("adds up several groups, by group, and names a group the key may not read", async () => {
    const limited = new InsightClient({ baseUrl: emu.baseUrl, apiKey: emu.limitedKey });
    try {
      const r = range("last 30 days");
      const a = await answerQuestion(
        { ...deps, reader: new CommunityReader(limited, { now: () => NOW }) },
        question({ range: r, groups: [SUPPORT, RIDES], scope: "workspace" }),
      );
      if (!a.ok) throw new Error(a.reply);
      const support = (await listing(SUPPORT.id)).filter((t) => inside(t, r));
      expect(a.answer.current.threads).toBe(support.length);
      expect(a.answer.failures).toEqual([
        {
          name: "Saturday Rides",
          reply:
            'The API key cannot read the chat group "Saturday Rides". Ask a community admin to grant it access in the Insight dashboard.',
        },
      ]);
      const both = await answer(question({ range: r, groups: [SUPPORT, RIDES], scope: "workspace" }));
      const rides = (await listing(RIDES.id)).filter((t) => inside(t, r));
      expect(both.current.threads).toBe(support.length + rides.length);
      expect(both.byGroup).toEqual(
        [
          { name: "Lumen DB Support", threads: support.length },
          { name: "Saturday Rides", threads: rides.length },
        ].sort((x, y) => y.threads - x.threads),
      );
    } finally {
      await limited.close();
    }
  });

  it("answers NOT_ANSWERING on a 429 and on an outage; a rejected key in the words of the other commands", async () => {
    const q = question({ range: range("this week") });
    emu.faults.set({ rateLimit: { count: 10, retryAfterSeconds: 0 } });
    expect(await answerQuestion(deps, q)).toEqual({ ok: false, reply: NOT_ANSWERING });
    emu.faults.set({ serverError: { count: 10, status: 503 } });
    expect(await answerQuestion(deps, q)).toEqual({ ok: false, reply: NOT_ANSWERING });
    emu.faults.set({ down: true });
    expect(await answerQuestion(deps, q)).toEqual({ ok: false, reply: NOT_ANSWERING });
    emu.faults.clear();
    const revoked = new InsightClient({ baseUrl: emu.baseUrl, apiKey: "not-a-key" });
    try {
      const r = await answerQuestion(
        { ...deps, reader: new CommunityReader(revoked, { now: () => NOW }) },
        q,
      );
      expect(r).toEqual({
        ok: false,
        reply:
          "The Insight Service rejected the app's API key. An admin has been alerted; nothing can be read until the key is fixed.",
      });
      expect(reported.some((e) => (e as { code?: string }).code === "unauthorized")).toBe(true);
    } finally {
      await revoked.close();
    }
  });
});
