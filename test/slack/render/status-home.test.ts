import { SETTINGS_ACTIONS } from "../../../src/slack/settings-ids.js";
import { describe, expect, it } from "vitest";
import type { StatusReport } from "../../../src/status/gather-status.js";
import { SILENCE_THRESHOLD_MS } from "../../../src/status/silence.js";
import type { Subscription } from "../../../src/store/subscriptions.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { cutOutsideCode, renderHome, renderOpenThreadsModal } from "../../../src/slack/render/home.js";
import { healthGlance, renderStatus, silenceLine } from "../../../src/slack/render/status.js";
import { durationText } from "../../../src/slack/render/wording.js";
import { buttons } from "../commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits, readerDateFallbacks } from "./walk.js";

const now = new Date("2026-03-06T12:00:00.000Z");
const sub = (i: number, over: Partial<Subscription> = {}): Subscription => ({
  channelId: `C0CHAN${i % 7}`,
  groupId: `grp_${i}`,
  groupName: `Group ${i}`,
  communityId: "com_1",
  filters: {},
  createdBy: "U0ADMIN",
  createdAt: "2026-03-01T00:00:00.000Z",
  ...over,
});
const report = (over: Partial<StatusReport> = {}): StatusReport => ({
  at: now.toISOString(),
  redis: { ok: true, error: undefined },
  deliveries: [
    { type: "chatthread-crud", lastAt: "2026-03-06T11:15:00.000Z", count: 1234 },
    { type: "chatmessage-crud", lastAt: undefined, count: 0 },
  ],
  silence: { silent: false, quietForMs: 45 * 60_000, since: "last-delivery", communities: [] },
  silenceThresholdMs: SILENCE_THRESHOLD_MS,
  queues: [
    { name: "deliveries", waiting: 0, active: 1, delayed: 0, failed: 0, workers: 2 },
    { name: "slack-out", waiting: 3, active: 0, delayed: 2, failed: 1, workers: 0 },
  ],
  deadLetters: { total: 2, kept: 2, byReason: { unknown_type: 1, invalid_json: 1 } },
  spool: 0,
  api: { reachable: true, keyValid: true, error: undefined, ms: 42, communities: 3 },
  lastUnauthorizedAt: undefined,
  subscriptions: {
    total: 4,
    channels: 2,
    paused: [sub(9, { paused: { code: "is_archived", at: now.toISOString() } })],
  },
  openAlerts: [],
  ...over,
});
const joined = (blocks: unknown) => allTexts(blocks).join("\n");

describe("renderStatus for people outside ADMIN_USER_IDS", () => {
  it("says the same facts in plain words, without queue names, incident keys or dead-letter reasons", () => {
    const r = renderStatus(report({ openAlerts: ["channel-C0X-is_archived", "insight-unauthorized"] }), now, {
      detail: false,
    });
    const t = joined(r.blocks);
    for (const internal of [
      "slack-out",
      "`deliveries`",
      "chatthread-crud",
      "channel-C0X",
      "insight-unauthorized",
      "invalid_json",
    ]) {
      expect(t).not.toContain(internal);
    }
    expect(t).toContain(
      "• Thread updates: last <!date^1772795700^{date_short_pretty} at {time}|2026-03-06 11:15 UTC> · 1,234 received",
    );
    expect(t).toContain("• New messages: none received yet · 0 received");
    expect(t).toContain(
      ":warning: Work is waiting and nothing is processing it; the app's admins have to look.",
    );
    // A paused subscription in words with the fix, without Slack's code.
    expect(t).toContain(
      "• *Group 9* in <#C0CHAN2> — That channel is archived: unarchive it, or subscribe another channel.",
    );
    expect(t).not.toContain("is_archived");
    expect(t).not.toMatch(/deliver/i);
    expect(t).toContain(":warning: 2 updates could not be used.");
    expect(t).toContain("2 operator alerts open");
    expect(r.text).toBe("Insight Relay status: 1 problem");
    // Operators still get every detail.
    const full = joined(
      renderStatus(report({ openAlerts: ["insight-unauthorized"] }), now, { detail: true }).blocks,
    );
    expect(full).toContain("`slack-out`");
    expect(full).toContain("`insight-unauthorized`");
  });

  it("a healthy app reads as such", () => {
    const t = joined(
      renderStatus(
        report({
          queues: [{ name: "deliveries", waiting: 0, active: 0, delayed: 0, failed: 0, workers: 1 }],
          deadLetters: { total: 0, kept: 0, byReason: {} },
        }),
        now,
        { detail: false },
      ).blocks,
    );
    expect(t).toContain(":heavy_check_mark: Nothing waiting: all work is done.");
    expect(t).not.toContain("could not be used");
  });

  it("idle schedules are not work in progress; failures are counted without names", () => {
    const plain = (queues: StatusReport["queues"]) =>
      joined(renderStatus(report({ queues }), now, { detail: false }).blocks);
    // Three schedulers waiting for their next run: delayed jobs, nothing to do now.
    expect(
      plain([
        { name: "weekly", waiting: 0, active: 0, delayed: 1, failed: 0, workers: 1 },
        { name: "digest", waiting: 0, active: 0, delayed: 1, failed: 0, workers: 1 },
        { name: "alerts", waiting: 0, active: 0, delayed: 1, failed: 0, workers: 1 },
      ]),
    ).toContain(":heavy_check_mark: Nothing waiting: all work is done.");
    expect(
      plain([{ name: "slack-out", waiting: 2, active: 1, delayed: 4, failed: 0, workers: 1 }]),
    ).toContain(":heavy_check_mark: 3 tasks waiting or running.");
    expect(
      plain([{ name: "slack-out", waiting: 0, active: 1, delayed: 0, failed: 2, workers: 1 }]),
    ).toContain(":warning: 1 task waiting or running; 2 tasks failed (the app's admins can see which).");
  });
});

describe("renderStatus", () => {
  it("webhooks, silence, queues, dead letters, spool, API and paused subscriptions", () => {
    const r = renderStatus(report(), now);
    expect(r).toMatchSnapshot();
    const t = joined(r.blocks);
    expect(t).toContain(
      "• `chatthread-crud`: last <!date^1772795700^{date_short_pretty} at {time}|2026-03-06 11:15 UTC> (45 min ago) · 1,234 received",
    );
    expect(t).toContain("• `chatmessage-crud`: never · 0 received");
    expect(t).toContain(":heavy_check_mark: Thread updates arrive normally (last one 45 min ago).");
    expect(t).toContain(
      "• `slack-out`: 3 waiting · 0 active · 2 delayed · 1 failed :warning: · :warning: no worker connected: jobs are not being processed",
    );
    expect(t).toContain("• `deliveries`: 0 waiting · 1 active · 0 delayed · 0 failed · 2 workers");
    expect(t).toContain(":warning: *Dead letters:* 2 (invalid_json 1, unknown_type 1)");
    expect(t).toContain("*Spool:* 0 webhook calls waiting on disk");
    expect(t).toContain(
      ":heavy_check_mark: *Insight API:* reachable, key accepted (42 ms, 3 communities readable)",
    );
    expect(t).toContain(
      "• *Group 9* in <#C0CHAN2> — That channel is archived: unarchive it, or subscribe another channel. (`is_archived`)",
    );
    expect(r.text).toBe("Insight Relay status: 1 problem");
    expectWithinLimits(r.blocks);
  });

  it("silent deliveries, a rejected key, an unreachable API and Redis down are each said plainly", () => {
    const silent = joined(
      renderStatus(
        report({
          silence: { silent: true, quietForMs: 30 * 3_600_000, since: "last-delivery", communities: [""] },
        }),
        now,
      ).blocks,
    );
    expect(silent).toContain(
      ":warning: *Updates look silent:* No thread update for 30 h while 3 subscriptions wait.",
    );
    expect(silent).toContain("re-enable it");
    const oneCommunity = joined(
      renderStatus(
        report({
          silence: {
            silent: true,
            quietForMs: 26 * 3_600_000,
            since: "last-delivery",
            communities: ["c1<b>"],
          },
        }),
        now,
      ).blocks,
    );
    expect(oneCommunity).toContain("No thread update from community `c1&lt;b&gt;` for 26 h");
    const rejected = joined(
      renderStatus(
        report({
          api: { reachable: true, keyValid: false, error: "unauthorized", ms: 5, communities: undefined },
        }),
        now,
      ).blocks,
    );
    expect(rejected).toContain(
      ":x: *Insight API:* reachable, but it rejected the API key (401). Operators have been alerted",
    );
    const down = joined(
      renderStatus(
        report({
          api: { reachable: false, keyValid: undefined, error: "timeout", ms: 5000, communities: undefined },
        }),
        now,
      ).blocks,
    );
    expect(down).toContain(":x: *Insight API:* unreachable (`timeout` after 5000 ms)");
    const noRedis = renderStatus(
      report({
        redis: { ok: false, error: "Redis did not answer within 2000 ms" },
        deliveries: undefined,
        queues: undefined,
        silence: undefined,
        subscriptions: undefined,
        deadLetters: undefined,
      }),
      now,
    );
    expect(joined(noRedis.blocks)).toContain(
      ":x: *Redis did not answer* (Redis did not answer within 2000 ms): parts of this report are missing.",
    );
    expect(joined(noRedis.blocks)).toContain("Could not read queue depths.");
    expect(noRedis.text).toBe("Insight Relay status: 1 problem");
  });

  it("jobs overdue: operators see each queue and shard, others a plain sentence, the Home tab a line", () => {
    const overdue = [
      { queue: "{slack-out-3}", state: "delayed" as const, jobs: 7, forMs: 68_000 },
      { queue: "{deliveries-1}", state: "waiting" as const, jobs: 1, forMs: 61_000 },
    ];
    const r = renderStatus(report({ overdue, openAlerts: ["jobs-overdue"] }), now);
    const t = joined(r.blocks);
    expect(t).toContain(
      ":x: *Jobs are overdue*: no worker is moving them, so digests to some channels are not going out. Nothing is lost; restarting the worker processes of these queues moves them.\n" +
        "• `{slack-out-3}`: 7 jobs delayed past their time, the oldest by 68 s (queue slack-out, shard 3)\n" +
        "• `{deliveries-1}`: 1 job waiting, and no worker has taken the next one for 61 s (queue deliveries, shard 1)",
    );
    // The incident is the same thing: not listed again by its name.
    expect(t).not.toContain("jobs-overdue");
    expect(r.text).toBe("Insight Relay status: 2 problems");
    const plain = joined(renderStatus(report({ overdue }), now, { detail: false }).blocks);
    expect(plain).toContain(
      ":x: Some work is overdue and nothing is moving it, so some digests are not going out; the app's admins have to look.",
    );
    expect(plain).not.toContain("slack-out");
    expect(plain).not.toContain("shard");
    expect(healthGlance(report({ overdue }))[0]).toBe(
      ":x: *Some work is overdue*: nothing is moving it, so some digests are not going out.",
    );
    // Nothing overdue: no such line anywhere.
    expect(joined(renderStatus(report({ overdue: [] }), now).blocks)).not.toContain("overdue");
  });

  it("durations are coarse", () => {
    expect([5_000, 120_000, 3 * 3_600_000, 3 * 86_400_000].map(durationText)).toEqual([
      "5 s",
      "2 min",
      "3 h",
      "3 d",
    ]);
  });
});

describe("renderHome", () => {
  const base = {
    subscriptions: [
      sub(1, { filters: { sentiments: ["negative"] } }),
      sub(2),
      sub(9, { paused: { code: "is_archived", at: now.toISOString() } }),
    ],
    // As describeSchedule makes it: mrkdwn with its own emoji.
    schedules: new Map([["C0CHAN1", ":calendar: Weekly summary: Mondays 09:00 (UTC)"]]),
    status: report(),
    help: [
      { usage: "help", summary: "this help" },
      { usage: "subscribe <group> [options]", summary: "follow a group" },
      { usage: "threads [range] [group]", summary: "threads" },
      { usage: "status", summary: "health" },
    ],
    canChange: true,
    adminsOnly: true,
  };

  it("says how each subscription arrives: a card per thread, or its digest times in the channel's zone", () => {
    const json = JSON.stringify(
      renderHome({
        ...base,
        subscriptions: [
          sub(1, { filters: { sentiments: ["negative"] } }),
          sub(2, { delivery: { mode: "digest", every: "24h", format: "full", replies: false } }),
          sub(3, { delivery: { mode: "summary", every: "24h", format: "full", replies: false } }),
        ],
        timeZones: new Map([["C0CHAN2", "Europe/Berlin"]]),
      }),
    );
    expect(json).toMatch(/negative[^"]* · a card per thread/);
    expect(json).toContain("daily digest at 09:00 (Europe/Berlin)");
    expect(json).toContain("weekly summary only");
  });

  it("health at a glance, subscriptions by channel with schedules, paused ones with Resume, quick help", () => {
    const v = renderHome(base);
    const json = JSON.stringify(v);
    // One Settings button per subscription for those who may change configuration, none otherwise.
    expect(json.match(new RegExp(`"action_id":"${SETTINGS_ACTIONS.open}"`, "g"))).toHaveLength(3);
    expect(JSON.stringify(renderHome({ ...base, canChange: false }))).not.toContain(SETTINGS_ACTIONS.open);
    expect(json).toContain("Ranges: `7d`, `30d`, `3m`, `6m`, `all`");
    expect(v).toMatchSnapshot();
    expect(v.type).toBe("home");
    const t = joined(v.blocks);
    expect(t).toContain("Health at a glance");
    expect(t).toContain(":heavy_check_mark: *Insight API:* reachable");
    // The glance says what `status` says to the same person: plain words here (no operator).
    expect(t).toContain(
      ":warning: Work is waiting and nothing is processing it; the app's admins have to look.",
    );
    expect(t).toContain(":warning: *Subscriptions:* 1 paused: Slack refused their channel (listed below).");
    expect(t).not.toContain("*Queues:*");
    expect(t).toContain(":warning: 2 updates could not be used.");
    expect(t).not.toContain("invalid_json");
    const operator = joined(renderHome({ ...base, detail: true }).blocks);
    expect(operator).toContain(
      ":warning: *Queues:* 3 waiting · 1 active · 2 delayed · 1 failed · :warning: no worker connected",
    );
    expect(operator).toContain(
      ":pause_button: *Group 9* in <#C0CHAN2> — That channel is archived: unarchive it, or subscribe another channel. (`is_archived`)",
    );
    expect(t).toContain("*Subscriptions* — 3 in 2 channels");
    expect(t).toContain(
      "<#C0CHAN1>\n:calendar: Weekly summary: Mondays 09:00 (UTC)\n• *Group 1* (`grp_1`) — sentiment negative",
    );
    expect(t).toContain(
      ":pause_button: *Group 9* in <#C0CHAN2> — That channel is archived: unarchive it, or subscribe another channel.",
    );
    expect(t).not.toContain("is_archived");
    expect(t).toContain("• `/insight threads [range] [group]` — threads");
    expect(t).toContain("Subscriptions and schedules are changed by the app's admins.");
    expect(buttons(v.blocks as unknown[]).map((b) => b.action_id)).toEqual([
      SETTINGS_ACTIONS.open,
      SETTINGS_ACTIONS.open,
      SETTINGS_ACTIONS.open,
      ACTIONS.resume,
    ]);
  });

  it("small wrongs: one calendar per schedule, no 'help — this help' line, <group> escaped", () => {
    const t = joined(renderHome(base).blocks);
    expect(t).not.toContain(":calendar: :calendar:");
    expect(t).not.toContain("this help");
    expect(t).toContain("• `/insight subscribe &lt;group&gt; [options]` — follow a group");
    const empty = joined(renderHome({ ...base, subscriptions: [], schedules: new Map() }).blocks);
    expect(empty).toContain("`/insight subscribe &lt;group&gt;`");
    expect(empty).not.toMatch(/<group>/);
  });

  it("lists the viewer's threads: assigned, open, handled lately; community text escaped", () => {
    const at = Date.parse("2025-03-06T09:00:00.000Z");
    const v = renderHome({
      ...base,
      threads: {
        assigned: [
          { channelId: "C0CHAN1", title: "Refunds <!channel>", groupName: "Support & Co", atMs: at },
        ],
        open: [{ channelId: "C0CHAN2", title: "Replica lag", groupName: "Ops", atMs: at }],
        handled: [
          { channelId: "C0CHAN1", title: "Login loop", groupName: "Support", atMs: at, handledBy: "U0BOB" },
        ],
      },
    });
    const t = joined(v.blocks);
    expect(t).toContain(
      ":bust_in_silhouette: *Assigned to you*\n• *Refunds &lt;!channel&gt;* — Support &amp; Co in <#C0CHAN1> · assigned <!date^1741251600^{date_short_pretty} at {time}|2025-03-06 09:00 UTC>",
    );
    expect(t).toContain("*Open*\n• *Replica lag* — Ops in <#C0CHAN2>");
    expect(t).toContain(
      ":ballot_box_with_check: *Handled lately*\n• *Login loop* — Support in <#C0CHAN1> · by <@U0BOB>",
    );
    const none = joined(renderHome({ ...base, threads: { assigned: [], open: [], handled: [] } }).blocks);
    expect(none).toContain("_Nothing assigned to you._");
  });

  it("no Resume button for those who may not change configuration; a notice on top", () => {
    const v = renderHome({ ...base, canChange: false, notice: "Only admins." });
    expect(buttons(v.blocks as unknown[])).toHaveLength(0);
    const t = joined(v.blocks);
    expect(t).toContain("Only the app's admins can resume them.");
    expect(allTexts(v.blocks)[1]).toBe("Only admins.");
  });

  it("a big workspace fits the Home tab's 100 blocks; hostile names are escaped", () => {
    const subs = Array.from({ length: 300 }, (_, i) =>
      sub(i, {
        channelId: `C0BIG${i}`,
        groupName: `<!channel> ${"&".repeat(300)}`,
        ...(i % 3 === 0 ? { paused: { code: "<!here>", at: now.toISOString() } } : {}),
      }),
    );
    const v = renderHome({ ...base, subscriptions: subs });
    const blocks = v.blocks as unknown[];
    expect(blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(40_000);
    expect(joined(blocks)).toMatch(/…and \d+ more \(see `\/insight list` in each channel\)\./);
    expectNoLiveTokens(JSON.parse(JSON.stringify(blocks).replace(/<#C0[A-Z0-9]+>/g, "#c")));
    expect(joined(blocks)).toContain("Quick help");
  });
});

describe("Home as an inbox", () => {
  const at = Date.parse("2025-03-06T09:00:00.000Z");
  const card = (i: number) => ({
    channelId: "C0CARDS",
    title: `Thread ${i}`,
    groupName: "Support",
    atMs: at - i,
  });
  const input = {
    subscriptions: [sub(1), sub(2)],
    schedules: new Map<string, string>(),
    status: report(),
    help: [
      { usage: "subscribe <group> [options]", summary: "follow a group" },
      {
        usage: "alerts <group>",
        // Long enough to be cut, with code spans all along.
        summary: Array.from({ length: 60 }, (_, i) => `\`--option-${i}\` does thing ${i}`).join(", "),
      },
    ],
    canChange: true,
    adminsOnly: false,
  };

  it("each heading is followed by its own list: your threads, then the subscriptions", () => {
    const t = joined(
      renderHome({ ...input, threads: { assigned: [], open: [card(1)], handled: [] } }).blocks,
    );
    const order = [
      "*Your threads*",
      "*Assigned to you*",
      "*Open*",
      "*Handled lately*",
      "*Subscriptions* — 2 in 2 channels",
      "<#C0CHAN1>",
      "<#C0CHAN2>",
      "*Quick help*",
    ];
    const at_ = order.map((h) => t.indexOf(h));
    expect(at_.every((i) => i >= 0)).toBe(true);
    expect([...at_].sort((a, b) => a - b)).toEqual(at_);
    // The subscriptions heading sits right above its first channel.
    expect(t).toContain("*Subscriptions* — 2 in 2 channels\n<#C0CHAN1>");
  });

  it("Open lists five, says how many more, and offers See all; without more, no button", () => {
    const v = renderHome({
      ...input,
      threads: { assigned: [], open: [1, 2, 3, 4, 5].map(card), handled: [], openMore: 3 },
    });
    const t = joined(v.blocks);
    expect(t).toContain("…and 3 more open: press *See all* to list them.");
    expect(t.match(/\*Thread \d\*/g)).toHaveLength(5);
    const all = buttons(v.blocks as unknown[]).filter((b) => b.action_id === ACTIONS.homeOpenThreads);
    expect(all.map((b) => b.text.text)).toEqual(["See all"]);
    const capped = joined(
      renderHome({
        ...input,
        threads: {
          assigned: [],
          open: [1, 2, 3, 4, 5].map(card),
          handled: [],
          openMore: 50,
          openMoreCapped: true,
        },
      }).blocks,
    );
    expect(capped).toContain("…and 50+ more open: press *See all* to list them.");
    const few = renderHome({ ...input, threads: { assigned: [], open: [card(1)], handled: [] } });
    expect(joined(few.blocks)).not.toContain("more open");
    expect(buttons(few.blocks as unknown[]).some((b) => b.action_id === ACTIONS.homeOpenThreads)).toBe(false);
  });

  it("See all lists every open thread in a modal, within the modal's limits", () => {
    const m = renderOpenThreadsModal(
      Array.from({ length: 100 }, (_, i) => card(i)),
      { capped: true },
    );
    expect(m.type).toBe("modal");
    const t = joined(m.blocks);
    expect(t).toContain("100 open threads (the newest): posted, not marked handled. Newest first.");
    expect(t).toContain("• *Thread 0* — Support in <#C0CARDS> · posted");
    expect(t).toContain("• *Thread 99* — Support in <#C0CARDS> · posted");
    // Modals take 100 blocks; each section within its 3,000 characters.
    const blocks = m.blocks as { type: string; text?: { text: string } }[];
    expect(blocks.length).toBeLessThanOrEqual(100);
    for (const b of blocks) expect(b.text?.text.length ?? 0).toBeLessThanOrEqual(3_000);
    expect(joined(renderOpenThreadsModal([]).blocks)).toContain("_No open threads._");
  });

  it("help lines are never cut inside code, and the quick help is the whole help", () => {
    const t = joined(renderHome(input).blocks);
    const line = t.split("\n").find((l) => l.startsWith("• `/insight alerts &lt;group&gt;`")) ?? "";
    expect(line.endsWith("…")).toBe(true);
    expect((line.match(/`/g) ?? []).length % 2).toBe(0);
    expect(line).toMatch(/`--option-\d+` does thing \d+…$/);
    expect(cutOutsideCode("use `--min-participants N` now", 20)).toBe("use…");
    expect(cutOutsideCode("short", 20)).toBe("short");
    expect(t).toContain("• `/insight subscribe &lt;group&gt; [options]` — follow a group");
  });
});

describe("status in a workspace whose Insight service is not connected yet", () => {
  const notConnected = report({
    api: undefined,
    insightNotConnected: true,
    subscriptions: { total: 0, channels: 0, paused: [] },
  });

  it("says it is not connected and who connects it, for admins and everyone else, and counts it", () => {
    for (const detail of [true, false]) {
      const r = renderStatus(notConnected, now, { detail });
      const t = joined(r.blocks);
      expect(t).toContain(
        ":electric_plug: *Insight API:* not connected yet. A workspace admin connects it on the app's Home tab.",
      );
      expect(t).not.toMatch(/unreachable|not checked/);
      expect(r.text).toBe("Insight Relay status: 1 problem");
    }
  });

  it("the Home tab's glance leaves it to the Connect section above it", () => {
    const t = joined(
      renderHome({
        subscriptions: [],
        schedules: new Map<string, string>(),
        status: notConnected,
        help: [{ usage: "status", summary: "health" }],
        canChange: true,
        adminsOnly: true,
      }).blocks,
    );
    expect(t).not.toContain("*Insight API:*");
    expect(t).toContain("Health at a glance");
  });
});

describe("status with the reconciler's webhook-silence incident open", () => {
  it("says the webhook has stopped and how to re-enable it, whatever the time-based guess says", () => {
    const line = silenceLine(report({ openAlerts: ["webhook-silence"] }));
    expect(line).toContain("Updates from the Insight Service have stopped");
    expect(line).toContain("re-enable the webhook");
    expect(silenceLine(report({ openAlerts: [] }))).not.toContain("have stopped");
  });

  it("counts the communities whose webhook stopped, and ignores other incidents", () => {
    const two = silenceLine(
      report({ openAlerts: ["webhook-silence:c1", "webhook-silence:c2", "insight-unauthorized"] }),
    );
    expect(two).toContain("Updates from the Insight Service have stopped* for 2 communities");
    expect(silenceLine(report({ openAlerts: ["webhook-silence:c1"] }))).toContain("have stopped* while");
    expect(silenceLine(report({ openAlerts: ["webhook-silencer", "insight-unauthorized"] }))).not.toContain(
      "have stopped",
    );
  });
});

describe("dates in status and Home", () => {
  it("are Slack date tokens with a readable UTC fallback, for admins and everyone else alike", () => {
    const r = report({ api: undefined, lastUnauthorizedAt: "2026-03-06T10:30:00.000Z" });
    const checked = "2026-03-06 12:00 UTC";
    expect(readerDateFallbacks(joined(renderStatus(r, now).blocks))).toEqual([
      "2026-03-06 11:15 UTC",
      "2026-03-06 10:30 UTC",
      checked,
    ]);
    const plain = joined(renderStatus(r, now, { detail: false }).blocks);
    expect(readerDateFallbacks(plain)).toContain(checked);
    expect(plain).toContain("last <!date^1772795700^{date_short_pretty} at {time}|2026-03-06 11:15 UTC>");
  });

  it("Home says when health was checked as a date token", () => {
    const v = renderHome({
      subscriptions: [],
      schedules: new Map(),
      status: report(),
      help: [],
      canChange: true,
      adminsOnly: true,
    });
    expect(joined(v.blocks)).toContain(
      "Checked <!date^1772798400^{date_short_pretty} at {time}|2026-03-06 12:00 UTC>",
    );
  });
});
