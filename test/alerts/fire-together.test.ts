import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { evaluateAlerts } from "../../src/alerts/evaluate.js";
import { alertsEvalDeps } from "../../src/compose/narrow-deps.js";
import { messageText, startHarness, type Harness } from "../helpers/app-harness.js";

const CH = "C0TOGETHER";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("alerts that fire together for a channel go out as one message", () => {
  let h: Harness;
  let group: string;

  beforeAll(async () => {
    // The scheduler's own evaluations wait an hour: this test runs the evaluation itself.
    h = await startHarness({ tuning: { alertsIntervalMs: HOUR } });
    group = h.emulator.store.addGroup(SEED.communities.primary, { name: "Release day" })._id;
    // 28 days at one thread an hour, all positive...
    const now = Date.now();
    for (let d = 1; d <= 28; d++) {
      for (let i = 0; i < 24; i++) {
        const first = now - d * DAY - i * HOUR - 60_000;
        h.emulator.store.addThread(group, {
          title: `Old thread ${d}-${i}`,
          firstMessageDate: new Date(first).toISOString(),
          lastMessageDate: new Date(first + 60_000).toISOString(),
          sentiment: "positive",
          isQuestionLed: false,
        });
      }
    }
    // ...then six negative threads in the last hour: a negative spike and a volume spike at once,
    // about the same six threads.
    for (let i = 0; i < 6; i++) {
      const first = now - (i + 1) * 5 * 60_000;
      h.emulator.store.addThread(group, {
        title: `Payments down ${i}`,
        firstMessageDate: new Date(first).toISOString(),
        lastMessageDate: new Date(first + 1_000).toISOString(),
        sentiment: "negative",
        isQuestionLed: false,
      });
    }
    await h.workspace.alerts.put(CH, {
      groupId: group,
      groupName: "Release day",
      negativeSpike: true,
      volumeSpike: true,
      setBy: "U0ALICE",
      setAt: new Date(now - DAY).toISOString(),
    });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("a negative spike and a volume spike of one evaluation: one message, each thread listed once", async () => {
    const run = await evaluateAlerts(alertsEvalDeps(h.workspace), "test");
    expect(run.posted).toBe(1);
    const posted = await h.slack.waitFor(() =>
      h.slack.messages(CH).length > 0 ? h.slack.messages(CH) : undefined,
    );
    expect(posted).toHaveLength(1);
    const m = posted[0];
    if (!m) throw new Error("no alert");
    expect(m.text).toBe(
      "Negative spike in Release day: 6 of 6 threads in the last 24 hours are negative (100%, against 0% over the previous 28 days); Volume spike in Release day: 6 new threads in the last hour; usually 1.0 an hour (over the previous 28 days)",
    );
    const text = messageText(m);
    expect(text).toContain(
      ":rotating_light: Negative spike in *Release day*: 6 of 6 threads in the last 24 hours are negative (100%, against 0% over the previous 28 days)\n:rotating_light: Volume spike in *Release day*: 6 new threads in the last hour; usually 1.0 an hour (over the previous 28 days)",
    );
    expect(text).toContain(`Set with \`/insight alerts\`. Turn off: \`/insight alerts off ${group}\``);
    for (let i = 0; i < 6; i++) expect(text.split(`*Payments down ${i}*`).length - 1).toBe(1);

    // The next evaluation says nothing again: both conditions are still held.
    expect((await evaluateAlerts(alertsEvalDeps(h.workspace), "test")).posted).toBe(0);
    expect(h.slack.messages(CH)).toHaveLength(1);
  });
});
