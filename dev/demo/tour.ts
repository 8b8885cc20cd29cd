import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { loadConfig, secretsOf } from "../../src/config.js";
import { SEED, startEmulator, type Emulator } from "../emulator/index.js";
import { createLogger } from "../../src/log.js";
import { buildServices, closeServices, type Services } from "../../src/compose/build-services.js";
import { startRoles, type RunningRoles } from "../../src/compose/start-roles.js";
import { SINGLE_WORKSPACE_ID } from "../../src/workspaces/workspace-id.js";
import { sessionLines, writeSession, type DemoSession } from "./session.js";
import { startSlackStandIn, type SlackStandIn } from "../slack-standin/server.js";
import { dayOf } from "../../src/store/delivery-health.js";
import { createPrinter, type Printer } from "./print.js";
import { sendSlashCommand } from "./sign.js";
import { shownPath, sleep, waitFor } from "./wait.js";

export const DEMO_CHANNEL = "C0COMMUNITY";
const DEMO_USER = "U0MANAGER";
const GROUP = SEED.groups.support;
const GROUP_NAME = "Lumen DB Support";
const STEPS = 10;

export interface TourOptions {
  redisUrl: string;
  prefix: string;
  /** Where the Block Kit JSON and the app's log go. */
  outDir: string;
  write: (s: string) => void;
  /** Keep everything running after the tour, until this resolves. */
  keepUntil?: Promise<void>;
}

export interface TourResult {
  problems: string[];
  blocksFile: string;
  logFile: string;
}

interface Ctx {
  emulator: Emulator;
  slack: SlackStandIn;
  services: Services;
  running: RunningRoles;
  eventsUrl: string;
  signingSecret: string;
  p: Printer;
  problems: string[];
}

const textOf = (body: unknown): string =>
  typeof body === "object" && body !== null && typeof (body as { text?: unknown }).text === "string"
    ? (body as { text: string }).text
    : "";

let commandSeq = 0;

/** Sends `/insight <text>` signed like Slack, waits for the reply; false when the subcommand is missing. */
async function command(c: Ctx, text: string, o: { thenChannelPost?: boolean } = {}): Promise<boolean> {
  const id = `cmd-${++commandSeq}`;
  const postsBefore = c.slack.posts().length;
  c.p.line(`  you   > /insight ${text}`);
  const status = await sendSlashCommand(c.eventsUrl, c.signingSecret, {
    text,
    channelId: DEMO_CHANNEL,
    userId: DEMO_USER,
    responseUrl: c.slack.responseUrl(id),
  });
  if (status !== 200) {
    c.problems.push(`/insight ${text}: the app answered HTTP ${status} instead of acknowledging`);
    return false;
  }
  const reply = await waitFor(() => c.slack.responses.find((r) => r.id === id), 15_000);
  if (!reply) {
    c.problems.push(`/insight ${text}: no reply within 15 s`);
    return false;
  }
  const sub = text.split(" ")[0] ?? text;
  if (textOf(reply.body).startsWith("There is no `")) {
    c.p.note(`(not available in this build yet: /insight ${sub} answered with the help text)`);
    return false;
  }
  if (o.thenChannelPost) {
    const posted = await waitFor(() => c.slack.posts().length > postsBefore, 30_000);
    if (!posted) c.problems.push(`/insight ${text}: nothing was posted in the channel within 30 s`);
    // A chart may follow the summary as a file.
    await waitFor(() => c.slack.files.some((f) => f.completed), 3_000);
  }
  await sleep(300); // lets any further reply of the same command print in its place
  return true;
}

const postOf = (c: Ctx, threadId: string) =>
  c.slack.messages(DEMO_CHANNEL).find((m) => JSON.stringify(m.metadata ?? {}).includes(threadId));

async function expectPost(c: Ctx, threadId: string, what: string, edits = 0) {
  const m = await waitFor(() => {
    const found = postOf(c, threadId);
    return found && found.updates >= edits ? found : undefined;
  }, 15_000);
  if (!m) c.problems.push(`${what}: not seen in Slack within 15 s`);
  await sleep(100);
  return m;
}

async function metricSum(c: Ctx, labels: Record<string, string>): Promise<number> {
  const { values } = await c.services.metrics.deliveries.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k as "type" | "outcome"] === x))
    .reduce((n, v) => n + v.value, 0);
}

async function tour(c: Ctx): Promise<void> {
  const { p, emulator } = c;

  p.step(2, STEPS, "What the API key can read");
  await command(c, "groups");

  p.step(3, STEPS, `Follow "${GROUP_NAME}" in #community-insights`);
  await command(c, `subscribe ${GROUP}`);

  p.step(4, STEPS, "The service finds a new thread and enriches it: webhook -> queue -> digest in Slack");
  const { thread: lag } = await emulator.createThread(GROUP, {
    title: "Replica lag after upgrading to 4.2",
    summary:
      "Several members see replicas falling minutes behind since the 4.2 upgrade. A maintainer asked for checkpoint settings and logs.",
    sentiment: "negative",
    keywords: ["replication", "upgrade", "checkpoint"],
    isQuestionLed: true,
    questionResponseStatus: "unanswered",
  });
  const lagPost = await expectPost(c, lag.id, "the digest of a new thread");

  p.step(5, STEPS, "A thread arrives before its enrichment, then gets enriched: the same message is edited");
  const { thread: grafana } = await emulator.createThread(GROUP, {
    title: "Grafana dashboard for retention policies?",
    summary: "",
    sentiment: "",
    keywords: [],
  });
  await expectPost(c, grafana.id, "the digest of a thread not yet enriched");
  await emulator.enrichThread(GROUP, grafana.id, {
    summary:
      "A user asked for a Grafana dashboard showing retention per measurement; two members shared theirs and the docs will link one.",
    sentiment: "positive",
    keywords: ["grafana", "retention", "dashboards"],
  });
  await expectPost(c, grafana.id, "the edit after enrichment", 1);
  p.note("Later, the lag thread is re-enriched: its digest is edited, not posted again.");
  await emulator.enrichThread(GROUP, lag.id, {
    summary:
      "Fixed in 4.2.1: the lag came from a checkpoint interval default; upgrading resolved it for everyone.",
    sentiment: "positive",
    questionResponseStatus: "answered",
  });
  const lagEdited = await expectPost(c, lag.id, "the edit after re-enrichment", 1);
  if (lagPost && lagEdited && lagEdited.ts !== lagPost.ts)
    c.problems.push("the re-enrichment posted a new message");

  p.step(
    6,
    STEPS,
    "Messages arrive in the group (chatmessage-crud): counted as activity, the card's counts follow",
  );
  const lines = [
    "Confirmed, 4.2.1 fixed the lag on our three replicas.",
    "Same here. Thanks for the quick release!",
    "Is the checkpoint default documented somewhere?",
  ];
  let day = dayOf(new Date());
  for (const text of lines) {
    const { message } = await emulator.postMessage(GROUP, lag.id, { messageText: text });
    day = dayOf(message.messageDate);
  }
  const counted = await waitFor(async () => {
    const n =
      (await (await c.running.workspaces.get(SINGLE_WORKSPACE_ID))?.health.activity(GROUP, [day]))?.[day] ??
      0;
    return n >= lines.length ? n : undefined;
  }, 10_000);
  if (counted)
    p.note(
      `${counted} messages counted for ${GROUP_NAME} on ${day} (each message once, even if delivered twice).`,
    );
  else c.problems.push("the new messages were not counted as activity within 10 s");
  await expectPost(c, lag.id, "the card's counts after new messages", 2);

  p.step(7, STEPS, "Threads of the last 7 days");
  await command(c, "threads last7Days");

  p.step(8, STEPS, "Semantic search in the followed group");
  await command(c, "search upgrade lag");

  p.step(9, STEPS, "This channel's weekly summary, now");
  await command(c, "weekly now", { thenChannelPost: true });

  p.step(10, STEPS, "Health: webhooks, queues, API");
  await command(c, "status");
}

/** Starts the emulator, the stand-in Slack and the app, plays the tour, reports; never throws. */
export async function runTour(o: TourOptions): Promise<TourResult> {
  mkdirSync(o.outDir, { recursive: true });
  const blocksFile = join(o.outDir, "slack-blocks.jsonl");
  const logFile = join(o.outDir, "app.log");
  writeFileSync(blocksFile, "");
  writeFileSync(logFile, "");
  const channelNames = { [DEMO_CHANNEL]: "#community-insights", C0OPSDEMO: "#relay-ops" };
  const p = createPrinter(o.write, channelNames);
  const problems: string[] = [];
  const spoolDir = mkdtempSync(join(tmpdir(), "insight-relay-demo-spool-"));
  const cleanups: (() => Promise<void>)[] = [];

  try {
    p.step(1, STEPS, "Start the Insight Service emulator (seeded), a stand-in Slack and the app");
    const emulator = await startEmulator();
    cleanups.push(() => emulator.close());
    const slack = await startSlackStandIn({ print: true, blocksFile, out: (line) => p.slack(line) });
    cleanups.push(() => slack.close());
    // The person touring installed the app: a workspace admin, who sees `status` in full.
    slack.oauth.grant({ teamId: "T0STANDIN", installerId: DEMO_USER });

    const signingSecret = randomBytes(16).toString("hex");
    const webhookSecret = randomBytes(16).toString("hex");
    const adminPassword = randomBytes(9).toString("base64url");
    const parsed = loadConfig({
      SLACK_BOT_TOKEN: `xoxb-demo-${randomBytes(8).toString("hex")}`,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: slack.url,
      INSIGHT_BASE_URL: emulator.baseUrl,
      INSIGHT_API_KEY: emulator.apiKey,
      WEBHOOK_SECRET: webhookSecret,
      REDIS_URL: o.redisUrl,
      REDIS_PREFIX: o.prefix,
      PORT: "0",
      SPOOL_DIR: spoolDir,
      OPS_CHANNEL_ID: "C0OPSDEMO",
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: "info",
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const config = parsed.config;
    const destination = pino.destination({ dest: logFile, sync: true });
    const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config), destination });
    const services = buildServices(config, logger, {
      channelGapMs: 300,
      refreshDelaysMs: [500, 1_500, 3_000],
      lookupCacheMs: 200,
      // A card's counts follow new messages at the end of a window (3 min in production); a
      // short one shows it within the tour instead of whenever the clock crosses a boundary.
      countsDebounceMs: 1_000,
      // The tour's steps follow one another within seconds: deliveries gather a tenth of
      // production's second, so each step's effects come in the order the tour tells them.
      intakeLingerMs: 100,
    });
    cleanups.push(() => closeServices(services));
    const running = await startRoles(services);
    cleanups.push(() => running.stop());
    const base = `http://127.0.0.1:${running.port ?? 0}`;
    emulator.webhooks.register({
      url: `${base}/webhooks/insight/${webhookSecret}`,
      types: ["chatthread-crud", "chatmessage-crud"],
    });
    p.note(`Insight emulator ${emulator.baseUrl}/api/v1/  (seeded: 3 communities, 7 chat groups)`);
    p.note(`Slack (stand-in) ${slack.url}  (prints what the app sends; Block Kit JSON to the file below)`);
    p.note(`Insight Relay    ${base}  (all roles; Redis ${o.redisUrl}, keys under "${o.prefix}:")`);

    const ctx: Ctx = {
      emulator,
      slack,
      services,
      running,
      eventsUrl: `${base}/slack/events`,
      signingSecret,
      p,
      problems,
    };
    await tour(ctx);

    for (const r of slack.responses) {
      appendFileSync(
        blocksFile,
        `${JSON.stringify({ method: "response_url", id: r.id, ...(r.body as object) })}\n`,
      );
    }
    const acks = await ctx.services.metrics.acks.get();
    const delivered = acks.values.reduce((n, v) => n + v.value, 0);
    const queued = await metricSum(ctx, { outcome: "queued" });
    const posts = slack.posts().length;
    const edits = slack.posts("chat.update").length;
    const files = slack.files.filter((f) => f.completed).length;
    p.line("\nWhat happened");
    p.note(`webhook deliveries received and acknowledged: ${delivered} (${queued} queued for the workers)`);
    p.note(
      `Slack: ${posts} messages posted, ${edits} edited in place, ${files} file(s), ${slack.responses.length} command replies`,
    );
    p.line("\nWhere to look");
    p.note(`Block Kit JSON of every post, edit and reply: ${shownPath(blocksFile)}`);
    p.note(`the app's JSON logs (pino, one line per event): ${shownPath(logFile)}`);
    p.note("paste a line's blocks into Slack's Block Kit Builder to see them as Slack shows them");
    if (!o.keepUntil)
      p.note("npm run demo -- --keep stays up afterwards, with /metrics and the admin page to look at");
    if (o.keepUntil) {
      const session: DemoSession = {
        eventsUrl: `${base}/slack/events`,
        signingSecret,
        slackUrl: new URL(slack.url).origin,
        teamId: "T0STANDIN",
        channelId: DEMO_CHANNEL,
        userId: DEMO_USER,
        webhookUrl: `${base}/webhooks/insight/${webhookSecret}`,
        emulator: { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
        metricsUrl: `${base}/metrics`,
        admin: { url: `${base}/admin/queues`, user: "admin", password: adminPassword },
      };
      const file = writeSession(o.outDir, session);
      p.line("\nStill running (Ctrl-C stops everything). Talk to it from another terminal:");
      for (const line of sessionLines(session, shownPath(file))) p.note(line);
      await o.keepUntil;
    }
  } catch (err) {
    problems.push(`the demo stopped: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
    rmSync(spoolDir, { recursive: true, force: true });
  }
  return { problems, blocksFile, logFile };
}
