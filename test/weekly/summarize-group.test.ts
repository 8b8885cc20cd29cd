import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { weekWindow } from "../../src/domain/weekly-window.js";
import { InsightClient } from "../../src/insight/client.js";
import { silentLogger } from "../../src/log.js";
import { renderWeeklyReport } from "../../src/slack/render/weekly-summary.js";
import { summarizeGroup } from "../../src/weekly/summarize-group.js";
import { allTexts } from "../slack/render/walk.js";

// Monday 09:00 in Berlin (08:00 UTC): the week is Mon 2 – Sun 8 March, Berlin days.
const NOW = new Date("2026-03-09T08:00:00.000Z");
const ZONE = "Europe/Berlin";
const WINDOW = weekWindow(NOW, ZONE);
const HOUR = 3_600_000;

describe("summarizeGroup over HTTP: the calendar week, not the rolling 7 × 24 h", () => {
  let em: Emulator;
  let client: InsightClient;
  let group: string;
  beforeAll(async () => {
    em = await startEmulator({ now: () => NOW, seeded: false });
    client = new InsightClient({ baseUrl: em.baseUrl, apiKey: em.apiKey, retry: { maxAttempts: 1 } });
    const c = em.store.addCommunity();
    group = em.store.addGroup(c._id, { name: "Community" })._id;
    const add = (ms: number, n: number) => {
      for (let i = 0; i < n; i++)
        em.store.addThread(group, { lastMessageDate: new Date(ms + i).toISOString() });
    };
    add(WINDOW.start + 2 * HOUR, 3); // Mon 2, 02:00: before the rolling window, inside the week
    add(WINDOW.listedFrom + HOUR, 4); // Mon 2, 10:00: inside both
    add(WINDOW.end - HOUR, 2); // Sun 8, 23:00
    add(WINDOW.end + HOUR, 5); // Mon 9, 01:00: the run day, next week's
    add(WINDOW.start - HOUR, 6); // Sun 1, 23:00: the week before
  });
  afterAll(async () => {
    await client?.close();
    await em?.close();
  });

  it("counts the first hours of the week from the older listing, and leaves the run day out", async () => {
    expect(WINDOW.listedFrom).toBeGreaterThan(WINDOW.start);
    const { outcome } = await summarizeGroup(
      { client, logger: silentLogger },
      { groupId: group, groupName: "Community" },
      WINDOW,
    );
    if (outcome.kind !== "summary") throw new Error(outcome.kind);
    expect(outcome.week.stats.threads).toBe(9);
    expect(outcome.week.stats.threadsByDay).toEqual([7, 0, 0, 0, 0, 0, 2]);
    expect(outcome.week.previous?.threads).toBe(6);
    expect(outcome.week.countedFrom).toBeUndefined();
  });

  it("when the older listing fails, says from when the week was counted", async () => {
    // The service fails from the first request for `last30Days` on (the fault matches paths
    // only, so it is switched on when that listing is asked for): a real 503 over HTTP.
    const failingOlder: Pick<InsightClient, "listThreads"> = {
      listThreads: (g, params, o) => {
        if (params?.range === "last30Days") em.faults.set({ serverError: { count: 100, status: 503 } });
        return client.listThreads(g, params, o);
      },
    };
    try {
      const { outcome } = await summarizeGroup(
        { client: failingOlder, logger: silentLogger },
        { groupId: group, groupName: "Community" },
        WINDOW,
      );
      if (outcome.kind !== "summary") throw new Error(outcome.kind);
      expect(outcome.week.stats.threads).toBe(6);
      expect(outcome.week.previous).toBeUndefined();
      expect(outcome.week.countedFrom).toBe(WINDOW.listedFrom);
      const text = allTexts(
        renderWeeklyReport({ channelId: "C1", window: WINDOW, timeZone: ZONE, groups: [outcome] }).blocks,
      ).join("\n");
      expect(text).toContain("Counted from Mon, Mar 2, 09:00: the service's older listing did not answer.");
    } finally {
      em.faults.clear();
    }
  });
});
