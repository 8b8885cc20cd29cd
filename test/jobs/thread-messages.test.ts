import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import { ThreadMessages } from "../../src/jobs/thread-messages.js";

/* A thread's messages as the message listing marks them, against the emulator over HTTP. */
describe("ThreadMessages", () => {
  const GROUP = SEED.groups.support;
  let emulator: Emulator;
  let client: InsightClient;
  beforeAll(async () => {
    emulator = await startEmulator();
    client = new InsightClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      retry: { maxAttempts: 1 },
    });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });
  beforeEach(() => emulator.requests.clear());

  it("tells bots and system messages from people's, with one reading shared by questions asked together", async () => {
    const thread = emulator.store.addThread(GROUP, {
      title: "Bots in a thread",
      messageCount: 0,
      participantCount: 0,
    });
    const person = emulator.store.addMessage(GROUP, thread.id, { messageText: "Hello" });
    const bot = emulator.store.addMessage(GROUP, thread.id, {
      messageText: "build 812 passed",
      isBotMessage: true,
    });
    const system = emulator.store.addMessage(GROUP, thread.id, {
      messageText: "Maya joined",
      isSystemMessage: true,
    });
    const messages = new ThreadMessages(client);
    const ids = [person.id, bot.id, system.id, "not-listed-yet"];
    const [a, b] = await Promise.all([
      messages.kinds(GROUP, thread.id, ids),
      messages.kinds(GROUP, thread.id, ids),
    ]);
    expect([...a.entries()]).toEqual([
      [person.id, "person"],
      [bot.id, "bot"],
      [system.id, "system"],
    ]);
    expect(b).toEqual(a);
    const listed = emulator.requests.all().filter((r) => r.path.endsWith("/displaychatmessage"));
    expect(listed[0]?.query).toMatchObject({ chatThreadId: thread.id, sort: "desc", page: "1" });
    // Three readings at most: the first, a fresh one per caller for the message not listed.
    expect(listed.length).toBeLessThanOrEqual(3);
  });

  it("counts a thread's messages and the people who wrote them (system messages left out)", async () => {
    const thread = emulator.store.addThread(GROUP, {
      title: "Counted",
      messageCount: 0,
      participantCount: 0,
    });
    const [ann, bob] = [
      { id: "m-ann", handle: "ann", fullName: "Ann" },
      { id: "m-bob", handle: "bob", fullName: "Bob" },
    ];
    for (const [authorInfo, text] of [
      [ann, "one"],
      [bob, "two"],
      [ann, "three"],
    ] as const) {
      emulator.store.addMessage(GROUP, thread.id, { messageText: text, authorInfo });
    }
    emulator.store.addMessage(GROUP, thread.id, { messageText: "pinned", isSystemMessage: true });
    expect(await new ThreadMessages(client).counts(GROUP, thread.id)).toEqual({
      messageCount: 4,
      participantCount: 2,
    });
  });
});
