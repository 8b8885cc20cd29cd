import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { evaluateAlerts } from "../../src/alerts/evaluate.js";
import { alertsEvalDeps } from "../../src/compose/narrow-deps.js";
import { digestsOf, messageText, startHarness, type Harness } from "../helpers/app-harness.js";
import { follow } from "../reconcile/support.js";

const CH = "C0ALERTS";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("alerts end to end: each fires once, quiet groups and young bases stay silent", () => {
  let h: Harness;
  let busy: string;
  let burst: string;
  let quiet: string;
  let young: string;

  /** `perDay` threads a day over `days` days before the last 24 h, `negShare` negative. */
  const history = (groupId: string, days: number, perDay: number, negShare = 0.1) => {
    const now = Date.now();
    for (let d = 1; d <= days; d++) {
      for (let i = 0; i < perDay; i++) {
        const first = now - d * DAY - (i + 1) * (DAY / (perDay + 1));
        h.emulator.store.addThread(groupId, {
          title: `Old thread ${d}-${i}`,
          firstMessageDate: new Date(first).toISOString(),
          lastMessageDate: new Date(first + 60_000).toISOString(),
          sentiment: i < Math.round(perDay * negShare) ? "negative" : "positive",
          isQuestionLed: false,
        });
      }
    }
  };
  const recent = (groupId: string, agoMs: number, title: string, sentiment = "neutral") => {
    const first = Date.now() - agoMs;
    return h.emulator.store.addThread(groupId, {
      title,
      firstMessageDate: new Date(first).toISOString(),
      lastMessageDate: new Date(first + 1_000).toISOString(),
      sentiment,
      isQuestionLed: false,
    });
  };
  const group = (name: string) => h.emulator.store.addGroup(SEED.communities.primary, { name })._id;
  const alertsIn = () =>
    h.slack.messages(CH).filter((m) => m.text.includes("spike") || m.text.includes("question"));
  const reply = async (text: string) => {
    const before = h.slack.responses.length;
    expect((await h.command(text, { channel: CH })).status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.length > before);
    return JSON.stringify(h.slack.responses.at(-1)?.body);
  };

  beforeAll(async () => {
    h = await startHarness({ tuning: { alertsIntervalMs: 700 } });
    busy = group("Busy support");
    burst = group("Launch chatter");
    quiet = group("Quiet corner");
    young = group("Brand new group");
    // Busy: 28 days at 10 a day, 10% negative; the last 24 h: 6 of 8 negative.
    history(busy, 28, 10, 0.1);
    for (let i = 0; i < 6; i++) recent(busy, (i + 2) * HOUR, `Refund refused ${i}`, "negative");
    for (let i = 0; i < 2; i++) recent(busy, (i + 2) * HOUR + 1, `Thanks note ${i}`, "positive");
    // Burst: usually 1 an hour; 7 in the last hour.
    history(burst, 28, 24, 0);
    for (let i = 0; i < 7; i++) recent(burst, (i + 1) * 5 * 60_000, `Launch question ${i}`);
    // Quiet: one a day; the last 24 h: 4 negative, all in the last hour (100%, 4x, but tiny).
    history(quiet, 28, 1, 0);
    for (let i = 0; i < 4; i++) recent(quiet, (i + 1) * 60_000, `Grumble ${i}`, "negative");
    // Young: 3 days of history, then a burst of negative threads: the base is still being learned.
    history(young, 3, 2, 0);
    for (let i = 0; i < 8; i++) recent(young, (i + 1) * 60_000, `Early storm ${i}`, "negative");
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("negative spike, volume spike and an overdue question each post once, naming the threads and linking the card", async () => {
    // The busy group is followed here, so its question gets a card the alert can link to.
    await follow(h, busy, CH);
    const { thread: q } = await h.emulator.createThread(busy, {
      title: "How do I rotate the API key?",
      sentiment: "neutral",
      isQuestionLed: true,
      questionResponseStatus: "unanswered",
      // Due 1 h after its first message: a few seconds from now.
      firstMessageDate: new Date(Date.now() - HOUR + 6_000).toISOString(),
      lastMessageDate: new Date(Date.now() - HOUR + 7_000).toISOString(),
    });
    const card = await h.slack.waitFor(() => digestsOf(h, q.id, CH)[0], { timeoutMs: 10_000 });

    expect(await reply(`alerts ${busy} --unanswered-after 1h --negative-spike`)).toContain(
      "Alerts on for *Busy support* in this channel",
    );
    expect(await reply(`alerts ${burst} --volume-spike`)).toContain("a volume spike");
    expect(await reply(`alerts ${quiet}`)).toContain("unanswered 24 hours after its first message");
    expect(await reply(`alerts ${young} --negative-spike --volume-spike`)).toContain("a negative spike");

    const negative = await h.slack.waitFor(
      () => alertsIn().find((m) => m.text.includes("Negative spike in Busy support")),
      { timeoutMs: 15_000 },
    );
    // 9: the question thread counts too (neutral).
    expect(negative.text).toContain(
      "6 of 9 threads in the last 24 hours are negative (67%, against 10% over the previous 28 days)",
    );
    expect(messageText(negative)).toContain("Refund refused 0");
    expect(messageText(negative)).not.toContain("Thanks note");

    const volume = await h.slack.waitFor(() =>
      alertsIn().find((m) => m.text.includes("Volume spike in Launch chatter")),
    );
    expect(volume.text).toContain("7 new threads in the last hour");

    const overdue = await h.slack.waitFor(
      () => alertsIn().find((m) => m.text.includes("waited more than 1 hour")),
      {
        timeoutMs: 20_000,
      },
    );
    const permalink = `https://insight-relay-test.slack.com/archives/${CH}/p${card.ts.replace(".", "")}`;
    expect(JSON.stringify(overdue.blocks)).toContain(`<${permalink}|How do I rotate the API key?>`);

    // Several more evaluations: nothing repeats, and the quiet and young groups never alerted.
    await new Promise((r) => setTimeout(r, 3_000));
    const texts = alertsIn().map((m) => m.text);
    // Alerts that fire in the same evaluation share one message; none is ever said twice.
    expect(texts.filter((t) => t.includes("Negative spike"))).toHaveLength(1);
    expect(texts.filter((t) => t.includes("Volume spike"))).toHaveLength(1);
    expect(texts.filter((t) => t.includes("for an answer"))).toHaveLength(1);
    expect(texts.some((t) => t.includes("Quiet corner") || t.includes("Brand new group"))).toBe(false);

    // Another scheduler (or a restart) evaluating the same moment posts nothing either.
    const again = await evaluateAlerts(alertsEvalDeps(h.workspace), "another-scheduler");
    expect(again.posted).toBe(0);
    expect(again.groups).toBe(4);

    expect(await reply(`alerts off ${burst}`)).toContain("Alerts off: no more alerts for *Launch chatter*");
    expect(await reply("alerts --negative-spike")).toContain("name the chat group to watch");
    expect(await reply(`alerts ${busy} --unanswered-after soon`)).toContain("such as `4h`");
  }, 60_000);
});
