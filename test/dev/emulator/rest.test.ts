import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../../dev/emulator/index.js";
import { get, type ErrorBody, type ListBody } from "./http.js";

/* The six endpoints over real HTTP: auth, versions, envelopes, parameters, pagination, range, sort. */

const NOW = new Date("2026-03-15T12:00:00.000Z");
const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

interface WireThread {
  id: string;
  title: string;
  firstMessageDate: string;
  lastMessageDate: string;
  messageCount: number;
  summary: string;
  sentiment: string;
  isQuestionLed: boolean;
  questionResponseStatus: string;
  keywords: string[];
  participantCount: number;
}
interface WireMessage {
  id: string;
  messageDate: string;
  messageText: string;
  isSystemMessage: boolean;
  isBotMessage: boolean;
  authorInfo: { id: string; handle: string; fullName: string };
  reactions: { emoji: string; count: number }[];
  chatThreadSummary?: { id: string; title: string };
  quotedMessageText?: string;
  quotedMessageAuthor?: string;
}

let emu: Emulator;
/** A group with threads at known ages, for range tests. */
let ranged: string;

beforeAll(async () => {
  emu = await startEmulator({ now: () => NOW });
  ranged = emu.store.addGroup(SEED.communities.primary, { name: "ranged" })._id;
  for (const days of [1, 7, 8, 31, 80, 150, 200, 400]) {
    const t = emu.store.addThread(ranged, { title: `${days} days`, lastMessageDate: ago(days) });
    emu.store.addMessage(ranged, t.id, { messageDate: ago(days), messageText: `${days} days` });
  }
});
afterEach(() => {
  emu.requests.clear();
  emu.faults.clear();
});
afterAll(async () => {
  await emu.close();
});

const threadsPath = (group: string, qs = "") => `/api/v1/chatgroup/${group}/displaychatthread${qs}`;
const messagesPath = (group: string, qs = "") => `/api/v1/chatgroup/${group}/displaychatmessage${qs}`;

describe("authentication and grants", () => {
  it("answers 401 with a JSON error body without a key or with an unknown key", async () => {
    const none = await get<ErrorBody>(emu, "/api/v1/community", { key: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: expect.any(String), status: 401 });
    expect(none.headers.get("content-type")).toMatch(/^application\/json/);
    const wrong = await get<ErrorBody>(emu, "/api/v1/chatgroup/" + SEED.groups.support, { key: "nope" });
    expect(wrong.status).toBe(401);
    expect(emu.requests.all().map((r) => r.key)).toEqual(["none", "unknown"]);
  });

  it("never records the key itself", async () => {
    await get(emu, "/api/v1/community");
    await get(emu, "/api/v1/community", { key: emu.limitedKey });
    const recorded = JSON.stringify(emu.requests.all());
    expect(recorded).not.toContain(emu.apiKey);
    expect(recorded).not.toContain(emu.limitedKey);
    expect(emu.requests.all().map((r) => r.key)).toEqual(["full", "limited"]);
  });

  it("limits the limited key to the primary community: 403 elsewhere", async () => {
    const key = emu.limitedKey;
    const list = await get<{ _id: string }[]>(emu, "/api/v1/community", { key });
    expect(list.body.map((c) => c._id)).toEqual([SEED.communities.primary]);
    expect((await get(emu, `/api/v1/community/${SEED.communities.primary}/chatgroup`, { key })).status).toBe(
      200,
    );
    expect(
      (await get(emu, `/api/v1/community/${SEED.communities.secondary}/chatgroup`, { key })).status,
    ).toBe(403);
    expect(
      (await get(emu, `/api/v1/community/${SEED.communities.restricted}/chatgroup`, { key })).status,
    ).toBe(403);
    expect((await get(emu, threadsPath(SEED.groups.support), { key })).status).toBe(200);
    for (const path of [
      `/api/v1/chatgroup/${SEED.groups.rides}`,
      threadsPath(SEED.groups.beta),
      messagesPath(SEED.groups.android),
      `/api/v1/chatgroup/${SEED.groups.workshop}/search?query=chain`,
    ]) {
      const r = await get<ErrorBody>(emu, path, { key });
      expect(r.status).toBe(403);
      expect(r.body.status).toBe(403);
    }
  });

  it("grants further keys at run time", async () => {
    emu.grantKey("key-for-rides", [SEED.communities.secondary]);
    expect((await get(emu, threadsPath(SEED.groups.rides), { key: "key-for-rides" })).status).toBe(200);
    expect((await get(emu, threadsPath(SEED.groups.support), { key: "key-for-rides" })).status).toBe(403);
  });
});

describe("versions and routes", () => {
  it("answers the unversioned path as v1 but records version null", async () => {
    const pinned = await get(emu, "/api/v1/community");
    const latest = await get(emu, "/api/community");
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual(pinned.body);
    expect(emu.requests.all().map((r) => [r.path, r.version])).toEqual([
      ["/api/v1/community", "v1"],
      ["/api/community", null],
    ]);
  });

  it("answers 404 for any other version", async () => {
    const r = await get<ErrorBody>(emu, "/api/v2/community");
    expect(r.status).toBe(404);
    expect(r.body.error).toMatch(/version/);
    expect(emu.requests.all()[0]?.version).toBe("v2");
  });

  it("answers 404 for unknown ids and routes, 405 for other methods", async () => {
    expect((await get(emu, "/api/v1/community/000000000000000000000000/chatgroup")).status).toBe(404);
    expect((await get(emu, "/api/v1/chatgroup/000000000000000000000000")).status).toBe(404);
    expect((await get(emu, threadsPath("000000000000000000000000"))).status).toBe(404);
    expect((await get(emu, messagesPath("nope"))).status).toBe(404);
    expect((await get(emu, "/api/v1/threads")).status).toBe(404);
    expect((await get(emu, "/elsewhere")).status).toBe(404);
    const post = await get<ErrorBody>(emu, "/api/v1/community", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("records method, path, query and status of every API request", async () => {
    await get(emu, threadsPath(SEED.groups.support, "?page=2&limit=5&range=last30Days"));
    expect(emu.requests.all()).toEqual([
      {
        method: "GET",
        path: threadsPath(SEED.groups.support),
        version: "v1",
        query: { page: "2", limit: "5", range: "last30Days" },
        status: 200,
        at: NOW,
        key: "full",
      },
    ]);
    expect(emu.requests.count((r) => r.status === 200)).toBe(1);
  });
});

describe("communities and chat groups", () => {
  it("lists communities as a bare array with every field", async () => {
    const r = await get<Record<string, unknown>[]>(emu, "/api/v1/community");
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((c) => c._id)).toEqual([
      SEED.communities.primary,
      SEED.communities.secondary,
      SEED.communities.restricted,
    ]);
    for (const c of r.body) {
      expect(Object.keys(c).sort()).toEqual(["CreationDate", "_id", "description", "name"]);
      expect(new Date(c.CreationDate as string).toISOString()).toBe(c.CreationDate);
    }
  });

  it("lists chat groups as a bare array; excludeDM=true drops direct-message groups", async () => {
    const path = `/api/v1/community/${SEED.communities.primary}/chatgroup`;
    const all = await get<{ _id: string; community: string; isDirectMessageGroup: boolean }[]>(emu, path);
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body.map((g) => g._id)).toEqual([
      SEED.groups.support,
      SEED.groups.contributors,
      SEED.groups.dm,
      ranged,
    ]);
    expect(all.body.every((g) => g.community === SEED.communities.primary)).toBe(true);
    expect(all.body.find((g) => g._id === SEED.groups.dm)?.isDirectMessageGroup).toBe(true);
    const noDm = await get<{ _id: string }[]>(emu, `${path}?excludeDM=true`);
    expect(noDm.body.map((g) => g._id)).toEqual([SEED.groups.support, SEED.groups.contributors, ranged]);
    const withDm = await get<{ _id: string }[]>(emu, `${path}?excludeDM=false`);
    expect(withDm.body).toHaveLength(4);
    expect((await get(emu, `${path}?excludeDM=yes`)).status).toBe(400);
  });

  it("returns the chat group detail with community, description, DM flag and counts", async () => {
    const r = await get<Record<string, unknown>>(emu, `/api/v1/chatgroup/${SEED.groups.support}`);
    expect(r.body).toMatchObject({
      _id: SEED.groups.support,
      name: "Lumen DB Support",
      community: SEED.communities.primary,
      isDirectMessageGroup: false,
      platform: "telegram",
      threadCount: emu.store.threads(SEED.groups.support).length,
      messageCount: emu.store.threads(SEED.groups.support).reduce((n, t) => n + t.messageCount, 0),
    });
    expect(typeof r.body.description).toBe("string");
    const dm = await get<Record<string, unknown>>(emu, `/api/v1/chatgroup/${SEED.groups.dm}`);
    expect(dm.body.isDirectMessageGroup).toBe(true);
  });
});

describe("thread listing", () => {
  it("answers the envelope with defaults page 1, limit 50, newest lastMessageDate first", async () => {
    const all = emu.store.threads(SEED.groups.support);
    const r = await get<ListBody<WireThread>>(emu, threadsPath(SEED.groups.support));
    expect(r.body.pagination).toEqual({
      page: 1,
      limit: 50,
      total: all.length,
      totalPages: Math.ceil(all.length / 50),
    });
    expect(r.body.data.map((t) => t.id)).toEqual(all.slice(0, 50).map((t) => t.id));
    const dates = r.body.data.map((t) => Date.parse(t.lastMessageDate));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it("sends every thread field, keywords and participantCount included", async () => {
    const r = await get<ListBody<WireThread>>(emu, threadsPath(SEED.groups.beta, "?limit=100"));
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const t of r.body.data) {
      expect(Object.keys(t).sort()).toEqual(
        [
          "firstMessageDate",
          "id",
          "isQuestionLed",
          "keywords",
          "lastMessageDate",
          "messageCount",
          "participantCount",
          "questionResponseStatus",
          "sentiment",
          "summary",
          "title",
        ].sort(),
      );
      expect(["positive", "neutral", "negative", "mixed"]).toContain(t.sentiment);
      expect(["answered", "unanswered", "pending"]).toContain(t.questionResponseStatus);
      expect(t.keywords.length).toBeGreaterThan(0);
      expect(Date.parse(t.firstMessageDate)).toBeLessThanOrEqual(Date.parse(t.lastMessageDate));
    }
  });

  it("sort=asc is the exact reverse of sort=desc", async () => {
    const desc = await get<ListBody<WireThread>>(
      emu,
      threadsPath(SEED.groups.support, "?limit=100&sort=desc"),
    );
    const asc = await get<ListBody<WireThread>>(emu, threadsPath(SEED.groups.support, "?limit=100&sort=asc"));
    expect(asc.body.data.map((t) => t.id)).toEqual(desc.body.data.map((t) => t.id).reverse());
    expect(asc.body.pagination.total).toBe(desc.body.pagination.total);
  });

  it("paginates: totalPages, a partial last page, an empty page beyond the end, no overlap", async () => {
    const group = emu.store.addGroup(SEED.communities.secondary, { name: "paged" })._id;
    emu.store.addThreads(group, 125);
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const r = await get<ListBody<WireThread>>(emu, threadsPath(group, `?page=${page}&limit=50`));
      expect(r.body.pagination).toEqual({ page, limit: 50, total: 125, totalPages: 3 });
      expect(r.body.data).toHaveLength(page === 3 ? 25 : 50);
      seen.push(...r.body.data.map((t) => t.id));
    }
    expect(new Set(seen).size).toBe(125);
    expect(seen).toEqual(emu.store.threads(group).map((t) => t.id));
    const beyond = await get<ListBody<WireThread>>(emu, threadsPath(group, "?page=4&limit=50"));
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({ data: [], pagination: { page: 4, limit: 50, total: 125, totalPages: 3 } });
    // Ascending pages walk the same threads from the other end.
    const lastAsc = await get<ListBody<WireThread>>(emu, threadsPath(group, "?page=3&limit=50&sort=asc"));
    expect(lastAsc.body.data.map((t) => t.id)).toEqual(seen.slice(0, 25).reverse());
  });

  it("answers an empty group with zero pages", async () => {
    const group = emu.store.addGroup(SEED.communities.secondary, { name: "empty" })._id;
    const r = await get<ListBody<WireThread>>(emu, threadsPath(group));
    expect(r.body).toEqual({ data: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } });
  });

  it.each([
    "page=0",
    "page=-1",
    "page=abc",
    "page=",
    "page=1.5",
    "limit=0",
    "limit=101",
    "limit=ten",
    "sort=up",
    "sort=DESC",
    "range=yesterday",
    "range=",
  ])("answers 400 with a JSON error for %s", async (qs) => {
    const r = await get<ErrorBody>(emu, threadsPath(SEED.groups.support, `?${qs}`));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: expect.stringMatching(/^invalid (page|limit|sort|range)/), status: 400 });
    expect((await get(emu, messagesPath(SEED.groups.support, `?${qs}`))).status).toBe(400);
  });

  it("accepts limit=100 and limit=1", async () => {
    const r100 = await get<ListBody<WireThread>>(emu, threadsPath(SEED.groups.support, "?limit=100"));
    expect(r100.body.data).toHaveLength(Math.min(100, emu.store.threads(SEED.groups.support).length));
    const r1 = await get<ListBody<WireThread>>(emu, threadsPath(SEED.groups.support, "?limit=1&page=2"));
    expect(r1.body.data.map((t) => t.id)).toEqual([emu.store.threads(SEED.groups.support)[1]?.id]);
  });

  it.each([
    ["last7Days", ["1 days", "7 days"]],
    ["last30Days", ["1 days", "7 days", "8 days"]],
    ["last3Months", ["1 days", "7 days", "8 days", "31 days", "80 days"]],
    ["last6Months", ["1 days", "7 days", "8 days", "31 days", "80 days", "150 days"]],
    ["allTime", ["1 days", "7 days", "8 days", "31 days", "80 days", "150 days", "200 days", "400 days"]],
  ])("range=%s filters by lastMessageDate relative to the injected clock", async (range, titles) => {
    const r = await get<ListBody<WireThread>>(emu, threadsPath(ranged, `?range=${range}`));
    expect(r.body.data.map((t) => t.title)).toEqual(titles);
    expect(r.body.pagination.total).toBe(titles.length);
    const asc = await get<ListBody<WireThread>>(emu, threadsPath(ranged, `?range=${range}&sort=asc&limit=2`));
    expect(asc.body.data.map((t) => t.title)).toEqual([...titles].reverse().slice(0, 2));
  });

  it("has recent threads in every seeded group (last7Days is never empty)", async () => {
    for (const group of Object.values(SEED.groups)) {
      const r = await get<ListBody<WireThread>>(emu, threadsPath(group, "?range=last7Days"));
      expect(r.body.pagination.total, group).toBeGreaterThan(0);
    }
  });
});

describe("message listing", () => {
  it("lists a group's messages newest first with every field", async () => {
    const all = emu.store.messages(SEED.groups.support);
    const r = await get<ListBody<WireMessage>>(emu, messagesPath(SEED.groups.support, "?limit=100"));
    expect(r.body.pagination).toEqual({
      page: 1,
      limit: 100,
      total: all.length,
      totalPages: Math.ceil(all.length / 100),
    });
    expect(r.body.data.map((m) => m.id)).toEqual(all.slice(0, 100).map((m) => m.id));
    for (const m of r.body.data) {
      expect(typeof m.messageText).toBe("string");
      expect(typeof m.isSystemMessage).toBe("boolean");
      expect(typeof m.isBotMessage).toBe("boolean");
      expect(m.authorInfo).toEqual({
        id: expect.any(String),
        handle: expect.any(String),
        fullName: expect.any(String),
      });
      expect(Array.isArray(m.reactions)).toBe(true);
      if (!m.isSystemMessage)
        expect(m.chatThreadSummary).toEqual({ id: expect.any(String), title: expect.any(String) });
      else expect(m.chatThreadSummary).toBeUndefined();
    }
  });

  it("filters by chatThreadId: all of that thread's messages, paginated", async () => {
    const thread = emu.store.threads(SEED.groups.support).find((t) => t.messageCount >= 4);
    if (!thread) throw new Error("seed has no thread with 4+ messages");
    const first = await get<ListBody<WireMessage>>(
      emu,
      messagesPath(SEED.groups.support, `?chatThreadId=${thread.id}&limit=2&sort=asc`),
    );
    expect(first.body.pagination).toEqual({
      page: 1,
      limit: 2,
      total: thread.messageCount,
      totalPages: Math.ceil(thread.messageCount / 2),
    });
    const all = await get<ListBody<WireMessage>>(
      emu,
      messagesPath(SEED.groups.support, `?chatThreadId=${thread.id}&sort=asc`),
    );
    expect(all.body.data).toHaveLength(thread.messageCount);
    expect(all.body.data.slice(0, 2)).toEqual(first.body.data);
    expect(all.body.data[0]?.messageDate).toBe(thread.firstMessageDate);
    expect(all.body.data.at(-1)?.messageDate).toBe(thread.lastMessageDate);
    for (const m of all.body.data.filter((x) => !x.isSystemMessage)) {
      expect(m.chatThreadSummary).toEqual({ id: thread.id, title: thread.title });
    }
    const none = await get<ListBody<WireMessage>>(
      emu,
      messagesPath(SEED.groups.support, "?chatThreadId=unknown"),
    );
    expect(none.body.pagination.total).toBe(0);
  });

  it("filters messages by messageDate with range", async () => {
    const r = await get<ListBody<WireMessage>>(emu, messagesPath(ranged, "?range=last30Days"));
    expect(r.body.data.map((m) => m.messageText)).toEqual(["1 days", "7 days", "8 days"]);
  });

  it("carries quotes, reactions, system and bot messages in the seed", async () => {
    const r = await get<ListBody<WireMessage>>(emu, messagesPath(SEED.groups.support, "?limit=100&page=1"));
    const r2 = await get<ListBody<WireMessage>>(emu, messagesPath(SEED.groups.support, "?limit=100&page=2"));
    const r3 = await get<ListBody<WireMessage>>(emu, messagesPath(SEED.groups.support, "?limit=100&page=3"));
    const all = [...r.body.data, ...r2.body.data, ...r3.body.data];
    const quoted = all.filter((m) => m.quotedMessageText !== undefined);
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.every((m) => typeof m.quotedMessageAuthor === "string")).toBe(true);
    expect(all.some((m) => m.reactions.length > 0)).toBe(true);
    expect(all.some((m) => m.isSystemMessage)).toBe(true);
    expect(all.some((m) => m.isBotMessage)).toBe(true);
  });
});
