import { describe, expect, it } from "vitest";
import { EmulatorStore, QUESTION_RESPONSE_STATUSES, SEED, SENTIMENTS } from "../../../dev/emulator/index.js";
import { seedStore } from "../../../dev/emulator/seed.js";

/* The store and the seed data, in process: determinism, realism, and the write operations. */

const NOW = new Date("2026-03-15T12:00:00.000Z");
const DAY = 86_400_000;

function seeded(seed = 42, now = NOW): EmulatorStore {
  const store = new EmulatorStore({ seed, now: () => now });
  seedStore(store, seed, now);
  return store;
}

const snapshot = (s: EmulatorStore) =>
  JSON.stringify(s.groups().map((g) => ({ g, threads: s.threads(g._id), messages: s.messages(g._id) })));

describe("seed data", () => {
  it("is deterministic: the same seed and clock give the same data, another seed other data", () => {
    expect(snapshot(seeded(42))).toBe(snapshot(seeded(42)));
    expect(snapshot(seeded(43))).not.toBe(snapshot(seeded(42)));
  });

  it("keeps the fixed ids of SEED whatever the seed", () => {
    const s = seeded(9);
    expect(s.communities().map((c) => c._id)).toEqual(Object.values(SEED.communities));
    expect(s.groups().map((g) => g._id)).toEqual(Object.values(SEED.groups));
    expect(s.thread(SEED.groups.support, SEED.threads.injection)).toBeDefined();
  });

  it("has 3 communities and 7 groups, one a direct-message group, from several platforms", () => {
    const s = seeded();
    expect(s.communities()).toHaveLength(3);
    expect(s.groups()).toHaveLength(7);
    expect(
      s
        .groups()
        .filter((g) => g.isDirectMessageGroup)
        .map((g) => g._id),
    ).toEqual([SEED.groups.dm]);
    expect(new Set(s.groups().map((g) => g.platform))).toEqual(new Set(["telegram", "whatsapp"]));
    expect(s.groups(SEED.communities.secondary).map((g) => g.name)).toEqual([
      "Saturday Rides",
      "Bike Workshop & Gear",
    ]);
  });

  it("gives every group 20-60 threads over the last ~4 months with every field set and consistent", () => {
    const s = seeded();
    for (const g of s.groups()) {
      const threads = s.threads(g._id);
      expect(threads.length, g.name).toBeGreaterThanOrEqual(20);
      expect(threads.length, g.name).toBeLessThanOrEqual(60);
      const ages = threads.map((t) => (NOW.getTime() - Date.parse(t.lastMessageDate)) / DAY);
      expect(Math.min(...ages)).toBeLessThan(7);
      expect(Math.max(...ages)).toBeGreaterThan(90);
      expect(Math.max(...ages)).toBeLessThan(125);
      for (const t of threads) {
        const messages = s.messages(g._id, t.id);
        expect(t.title.length).toBeGreaterThan(5);
        expect(
          t.summary.split(/[.!?](\s|$)/).filter((x) => x.trim().length > 2).length,
        ).toBeGreaterThanOrEqual(1);
        expect(t.keywords.length).toBeGreaterThan(0);
        expect(SENTIMENTS).toContain(t.sentiment);
        expect(QUESTION_RESPONSE_STATUSES).toContain(t.questionResponseStatus);
        expect(t.messageCount).toBe(messages.length);
        expect(t.lastMessageDate).toBe(messages[0]?.messageDate);
        expect(t.firstMessageDate).toBe(messages.at(-1)?.messageDate);
        expect(t.participantCount).toBeGreaterThan(0);
        if (t.questionResponseStatus === "unanswered") {
          expect(messages.filter((m) => !m.isSystemMessage && !m.isBotMessage)).toHaveLength(1);
        }
      }
    }
  });

  it("uses every sentiment and status, and both question-led and other threads", () => {
    const s = seeded();
    const threads = s.groups().flatMap((g) => s.threads(g._id));
    expect(new Set(threads.map((t) => t.sentiment))).toEqual(new Set(SENTIMENTS));
    expect(new Set(threads.map((t) => t.questionResponseStatus))).toEqual(
      new Set(QUESTION_RESPONSE_STATUSES),
    );
    expect(new Set(threads.map((t) => t.isQuestionLed))).toEqual(new Set([true, false]));
  });

  it("writes direct messages between the same two people only", () => {
    const s = seeded();
    const authors = new Set(s.messages(SEED.groups.dm).map((m) => m.authorInfo.fullName));
    expect(authors).toEqual(new Set(["Maya Chen", "Jonas Berg"]));
  });

  it("has authors, reactions, quotes, system and bot messages", () => {
    const s = seeded();
    const messages = s.groups().flatMap((g) => s.messages(g._id));
    expect(messages.length).toBeGreaterThan(500);
    expect(messages.every((m) => m.authorInfo.id && m.authorInfo.handle && m.authorInfo.fullName)).toBe(true);
    expect(messages.filter((m) => m.reactions.length > 0).length).toBeGreaterThan(50);
    const quoted = messages.filter((m) => m.quotedMessageText !== undefined);
    expect(quoted.length).toBeGreaterThan(20);
    expect(quoted.every((m) => typeof m.quotedMessageAuthor === "string")).toBe(true);
    expect(messages.filter((m) => m.isSystemMessage).length).toBeGreaterThan(3);
    expect(messages.filter((m) => m.isBotMessage).length).toBeGreaterThan(3);
    expect(messages.some((m) => m.messageText.includes("{"))).toBe(false);
  });

  it("includes untrusted text with Slack control sequences", () => {
    const t = seeded().thread(SEED.groups.support, SEED.threads.injection);
    expect(t?.title).toContain("<!channel>");
    expect(t?.summary).toContain("<@U123> check <https://evil.example|docs>");
  });

  it("fills every template placeholder", () => {
    const s = seeded();
    const text = s
      .groups()
      .flatMap((g) => s.threads(g._id).flatMap((t) => [t.title, t.summary, ...t.keywords]));
    expect(text.filter((x) => /\{\w+\}/.test(x))).toEqual([]);
  });
});

describe("writes", () => {
  it("addThread fills every field with realistic defaults, dated now, and lists it first", () => {
    const s = seeded();
    const t = s.addThread(SEED.groups.support);
    expect(t.lastMessageDate).toBe(NOW.toISOString());
    expect(Date.parse(t.firstMessageDate)).toBeLessThanOrEqual(NOW.getTime());
    expect(t.title).not.toBe("");
    expect(t.summary).not.toBe("");
    expect(t.keywords.length).toBeGreaterThan(0);
    expect(s.threads(SEED.groups.support)[0]).toEqual(t);
  });

  it("addThreads adds many threads fast-path, spread over withinDays, sorted newest first", () => {
    const s = seeded();
    const g = s.addGroup(SEED.communities.primary, { name: "bulk" });
    const added = s.addThreads(g._id, 20_000, { withinDays: 30 });
    expect(added).toHaveLength(20_000);
    const listed = s.threads(g._id);
    expect(listed).toHaveLength(20_000);
    expect(new Set(listed.map((t) => t.id)).size).toBe(20_000);
    const times = listed.map((t) => Date.parse(t.lastMessageDate));
    expect(times.every((x, i) => i === 0 || (times[i - 1] ?? 0) >= x)).toBe(true);
    expect(NOW.getTime() - Math.min(...times)).toBeLessThanOrEqual(30 * DAY);
    const page = s.threadWindow(g._id, NOW.getTime() - 7 * DAY, "desc", 100, 100);
    expect(page.data).toHaveLength(100);
    expect(page.total).toBeGreaterThan(4_000);
    expect(page.total).toBeLessThan(5_400);
  });

  it("updateThread replaces fields, keeps the id and re-sorts", () => {
    const s = seeded();
    const oldest = s.threads(SEED.groups.rides).at(-1);
    if (!oldest) throw new Error("no threads");
    const moved = s.updateThread(SEED.groups.rides, oldest.id, {
      lastMessageDate: NOW.toISOString(),
      summary: "Re-enriched.",
    });
    expect(moved).toMatchObject({ id: oldest.id, summary: "Re-enriched.", title: oldest.title });
    expect(s.threads(SEED.groups.rides)[0]?.id).toBe(oldest.id);
    expect(() => s.updateThread(SEED.groups.rides, "nope", {})).toThrow(/unknown thread/);
  });

  it("addMessage updates the thread's counts and dates", () => {
    const s = seeded();
    const t = s.threads(SEED.groups.workshop).at(-1);
    if (!t) throw new Error("no threads");
    const stranger = { id: "m-new", handle: "newbie", fullName: "New Person" };
    const m = s.addMessage(SEED.groups.workshop, t.id, {
      authorInfo: stranger,
      messageText: "Still relevant?",
    });
    expect(m).toMatchObject({
      threadId: t.id,
      messageDate: NOW.toISOString(),
      messageText: "Still relevant?",
    });
    const after = s.thread(SEED.groups.workshop, t.id);
    expect(after).toMatchObject({
      messageCount: t.messageCount + 1,
      participantCount: t.participantCount + 1,
      lastMessageDate: NOW.toISOString(),
      firstMessageDate: t.firstMessageDate,
    });
    expect(s.messages(SEED.groups.workshop, t.id)[0]?.id).toBe(m.id);
    expect(s.messages(SEED.groups.workshop)[0]?.id).toBe(m.id);
  });

  it("adds communities and groups; unknown ids throw", () => {
    const s = new EmulatorStore({ seed: 1, now: () => NOW });
    const c = s.addCommunity({ name: "Makers" });
    const g = s.addGroup(c._id, { name: "3D printing", isDirectMessageGroup: false });
    expect(s.communities()).toEqual([c]);
    expect(s.groups(c._id)).toEqual([g]);
    expect(g.community).toBe(c._id);
    expect(() => s.addGroup("nope")).toThrow(/unknown community/);
    expect(() => s.threads("nope")).toThrow(/unknown chat group/);
  });
});
