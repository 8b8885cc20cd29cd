import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../../dev/emulator/index.js";
import { scoreMessage, scoreThread, searchGroup, tokenize } from "../../../dev/emulator/search.js";
import type { EmulatedMessage, EmulatedThread } from "../../../dev/emulator/types.js";
import { parseSearchResults } from "../../../src/insight/schemas.js";
import { get, type ErrorBody, type ListBody } from "./http.js";

/* Search: the HTTP endpoint with the default and a custom parameter name, and the scoring. */

interface Hit {
  type: "thread" | "message";
  score: number;
  id: string;
  title?: string;
  summary?: string;
  keywords?: string[];
  messageText?: string;
  chatThreadSummary?: { id: string; title: string };
}

let emu: Emulator;
let custom: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
  custom = await startEmulator({ searchParam: "q" });
});
afterAll(async () => {
  await Promise.all([emu.close(), custom.close()]);
});

const searchPath = (group: string, qs: string) => `/api/v1/chatgroup/${group}/search?${qs}`;

describe("search endpoint", () => {
  it("ranks threads and messages by word overlap, best first, zero scores left out", async () => {
    const r = await get<ListBody<Hit>>(emu, searchPath(SEED.groups.support, "query=compaction%20latency"));
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    const scores = r.body.data.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores.every((s) => s > 0 && s <= 1)).toBe(true);
    const top = r.body.data[0];
    expect(top?.type).toBe("thread");
    expect(top?.title).toMatch(/latency/i);
    expect(r.body.pagination).toEqual({
      page: 1,
      limit: 50,
      total: expect.any(Number),
      totalPages: Math.ceil(r.body.pagination.total / 50),
    });
    const messageHit = r.body.data.find((h) => h.type === "message");
    expect(messageHit?.messageText).toMatch(/compaction|latency/i);
    expect(messageHit?.chatThreadSummary?.id).toEqual(expect.any(String));
  });

  it("returns a shape the app's tolerant search parser understands", async () => {
    const r = await get(emu, searchPath(SEED.groups.workshop, "query=tubeless%20tyres"));
    const parsed = parseSearchResults(r.body);
    expect(parsed.threads[0]?.title).toBe("Tubeless setup keeps burping");
    expect(parsed.threads[0]?.score).toBeGreaterThan(0);
  });

  it("paginates the ranked hits", async () => {
    const all = await get<ListBody<Hit>>(
      emu,
      searchPath(SEED.groups.support, "query=lumen%20upgrade&limit=100"),
    );
    const p2 = await get<ListBody<Hit>>(
      emu,
      searchPath(SEED.groups.support, "query=lumen%20upgrade&limit=3&page=2"),
    );
    expect(p2.body.data.map((h) => h.id)).toEqual(all.body.data.slice(3, 6).map((h) => h.id));
    expect(p2.body.pagination.total).toBe(all.body.pagination.total);
  });

  it("finds nothing for words that appear nowhere", async () => {
    const r = await get<ListBody<Hit>>(emu, searchPath(SEED.groups.support, "query=zeppelin"));
    expect(r.body).toEqual({ data: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } });
  });

  it("answers 400 without search text, and for bad page or limit", async () => {
    for (const qs of ["", "query=", "query=%20%20", "q=chain"]) {
      const r = await get<ErrorBody>(emu, searchPath(SEED.groups.workshop, qs));
      expect(r.status, qs).toBe(400);
      expect(r.body.error).toMatch(/query/);
    }
    expect((await get(emu, searchPath(SEED.groups.workshop, "query=chain&limit=500"))).status).toBe(400);
  });

  it("reads the text from a custom parameter name when configured", async () => {
    const r = await get<ListBody<Hit>>(custom, searchPath(SEED.groups.workshop, "q=chain%20wear"));
    expect(r.status).toBe(200);
    expect(r.body.data[0]?.title).toBe("Chain wear: when to replace?");
    const wrong = await get<ErrorBody>(custom, searchPath(SEED.groups.workshop, "query=chain"));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/\bq\b/);
  });

  it("checks the key's grant and the group", async () => {
    expect((await get(emu, searchPath(SEED.groups.beta, "query=sync"), { key: emu.limitedKey })).status).toBe(
      403,
    );
    expect((await get(emu, searchPath("nope", "query=sync"))).status).toBe(404);
  });
});

describe("scoring", () => {
  const thread = (over: Partial<EmulatedThread>): EmulatedThread => ({
    id: "t1",
    title: "",
    firstMessageDate: "2026-01-01T00:00:00.000Z",
    lastMessageDate: "2026-01-01T00:00:00.000Z",
    messageCount: 1,
    summary: "",
    sentiment: "neutral",
    isQuestionLed: false,
    questionResponseStatus: "answered",
    keywords: [],
    participantCount: 1,
    ...over,
  });
  const message = (text: string, over: Partial<EmulatedMessage> = {}): EmulatedMessage => ({
    id: "m1",
    threadId: "t1",
    messageDate: "2026-01-01T00:00:00.000Z",
    messageText: text,
    isSystemMessage: false,
    isBotMessage: false,
    authorInfo: { id: "a", handle: "a", fullName: "A" },
    reactions: [],
    ...over,
  });

  it("tokenizes to lower-case words without stopwords or plural s", () => {
    expect(tokenize("How do I fix the Brakes? Émilie's 2 bikes")).toEqual(["fix", "brake", "émilie", "bike"]);
  });

  it("weighs title over keywords over summary", () => {
    const terms = ["brake"];
    expect(scoreThread(terms, thread({ title: "Brakes squeal" }))).toBe(1);
    expect(scoreThread(terms, thread({ keywords: ["brakes"] }))).toBe(0.667);
    expect(scoreThread(terms, thread({ summary: "about brakes" }))).toBe(0.333);
    expect(scoreThread(terms, thread({ title: "Tyres" }))).toBe(0);
    expect(scoreThread(["brake", "tyre"], thread({ title: "Brakes" }))).toBe(0.5);
  });

  it("scores messages by the share of terms, leaving system messages out", () => {
    expect(scoreMessage(["chain", "wear"], message("My chain shows wear"))).toBe(0.9);
    expect(scoreMessage(["chain", "wear"], message("New chain"))).toBe(0.45);
    expect(scoreMessage(["chain"], message("chain joined", { isSystemMessage: true }))).toBe(0);
  });

  it("breaks ties by newer date, then threads before messages", () => {
    const older = thread({ id: "old", title: "chain", lastMessageDate: "2026-01-01T00:00:00.000Z" });
    const newer = thread({ id: "new", title: "chain", lastMessageDate: "2026-02-01T00:00:00.000Z" });
    const hits = searchGroup("chain", [older, newer], [message("chain", { id: "m" })]);
    expect(hits.map((h) => (h.type === "thread" ? h.thread.id : h.message.id))).toEqual(["new", "old", "m"]);
  });
});
