import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { request } from "undici";
import { loadConfig, secretsOf } from "../../src/config.js";
import { buildServices, closeServices } from "../../src/compose/build-services.js";
import { startRoles } from "../../src/compose/start-roles.js";
import { createLogger } from "../../src/log.js";
import { SEED, startEmulator, type Emulator } from "../emulator/index.js";
import { freePort } from "../local-redis.js";
import { flattenBlocks } from "../slack-standin/flatten-blocks.js";
import { startSlackStandIn, type SlackStandIn, type StoredMessage } from "../slack-standin/server.js";
import { createPrinter, type Printer } from "./print.js";
import { sendEvent, sendInteraction, sendSlashCommand } from "./sign.js";
import type { TourOptions, TourResult } from "./tour.js";
import { shownPath, sleep, waitFor } from "./wait.js";

/*
 * `npm run demo -- --workspaces 2`: one deployment, two Slack workspaces. The app runs in
 * multi-workspace mode; each workspace is installed through the real "Add to Slack" routes,
 * connected to the Insight Service from its Home tab, and subscribes a channel to the same
 * chat group. Then the service sends its deliveries, and the tour shows side by side what each
 * workspace's channel got, and that neither saw the other's.
 */

const STEPS = 7;
const GROUP = SEED.groups.support;
const GROUP_NAME = "Lumen DB Support";

interface DemoWorkspace {
  id: string;
  name: string;
  admin: string;
  channel: string;
  channelName: string;
  /** Filled in by the tour. */
  webhookUrl: string;
}

const WORKSPACES: DemoWorkspace[] = [
  {
    id: "T0NORTH",
    name: "North Star Hosting",
    admin: "U0NORTHADMIN",
    channel: "C0NORTHDB",
    channelName: "#north-db-community",
    webhookUrl: "",
  },
  {
    id: "T0SOUTH",
    name: "South Bay Analytics",
    admin: "U0SOUTHADMIN",
    channel: "C0SOUTHDB",
    channelName: "#south-lumen-watch",
    webhookUrl: "",
  },
];

interface Ctx {
  emulator: Emulator;
  slack: SlackStandIn;
  base: string;
  signingSecret: string;
  p: Printer;
  problems: string[];
}

const eventsUrl = (c: Ctx) => `${c.base}/slack/events`;

/** A browser's GET: no redirect followed, cookies passed by hand. */
async function browse(url: string, cookie?: string) {
  const res = await request(url, { method: "GET", headers: cookie ? { cookie } : {} });
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v.join("; ") : (v ?? "");
  };
  return {
    status: res.statusCode,
    body: await res.body.text(),
    location: header("location"),
    setCookie: header("set-cookie"),
  };
}

/** A webhook URL as the demo shows it: the secret in it is a credential, so only its start. */
const masked = (url: string) => url.replace(/(\/webhooks\/insight\/)(.{6}).*$/, "$1$2…");

const headingOf = (html: string) =>
  (/<h1>(.*?)<\/h1>/s.exec(html)?.[1] ?? "").replace(/&amp;/g, "&").replace(/&#39;/g, "'");

/** "Add to Slack" in a browser: the install page, Slack's authorize page, the redirect back. */
async function install(c: Ctx, ws: DemoWorkspace): Promise<void> {
  const page = await browse(`${c.base}/slack/install`);
  const href = /href="([^"]+)"/.exec(page.body)?.[1]?.replace(/&amp;/g, "&");
  const cookie = /slack-app-oauth-state=[^;]+/.exec(page.setCookie)?.[0];
  if (page.status !== 200 || !href || !cookie) {
    c.problems.push(`${ws.name}: /slack/install answered ${page.status} without an Add to Slack link`);
    return;
  }
  c.p.line(`  browser > GET /slack/install  ("Add to Slack")`);
  const authorize = new URL(href);
  authorize.searchParams.set("team", ws.id); // the workspace chosen on Slack's page
  const allowed = await browse(authorize.toString());
  c.p.line(`  browser > Slack's authorize page: install in ${ws.name}, Allow`);
  if (allowed.status !== 302 || !allowed.location) {
    c.problems.push(`${ws.name}: the authorize page answered ${allowed.status} instead of a redirect`);
    return;
  }
  const done = await browse(allowed.location, cookie);
  c.p.line(`  browser > GET /slack/oauth_redirect: "${headingOf(done.body)}"`);
  if (done.status !== 200) c.problems.push(`${ws.name}: the install ended with HTTP ${done.status}`);
}

interface ButtonLike {
  type: string;
  action_id: string;
  value?: string;
  /** The block it sits in (a card's actions block names its thread). */
  block_id?: string;
}

/** Every button in some blocks, with the id of the block it sits in. */
function buttonsIn(blocks: unknown): ButtonLike[] {
  const out: ButtonLike[] = [];
  const visit = (v: unknown, blockId: string | undefined) => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, blockId));
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      const inBlock = typeof o.block_id === "string" ? o.block_id : blockId;
      if (o.type === "button" && typeof o.action_id === "string")
        out.push({ ...(o as unknown as ButtonLike), ...(inBlock ? { block_id: inBlock } : {}) });
      else Object.values(o).forEach((x) => visit(x, inBlock));
    }
  };
  visit(blocks, undefined);
  return out;
}

function blockActions(ws: DemoWorkspace, action: ButtonLike, extra: Record<string, unknown> = {}) {
  return {
    type: "block_actions",
    team: { id: ws.id, domain: ws.id.toLowerCase() },
    user: { id: ws.admin, username: "admin", name: "admin", team_id: ws.id },
    api_app_id: "A0STANDIN",
    token: "unused-legacy-token",
    trigger_id: `7012345678901.1234567890123.${randomBytes(16).toString("hex")}`,
    enterprise: null,
    is_enterprise_install: false,
    actions: [
      {
        type: "button",
        action_id: action.action_id,
        block_id: action.block_id ?? "actions",
        ...(action.value !== undefined ? { value: action.value } : {}),
        action_ts: `${Math.floor(Date.now() / 1000)}.000100`,
      },
    ],
    ...extra,
  };
}

/** The Home tab, then Connect, then the modal submitted: the workspace's own webhook URL. */
async function connect(c: Ctx, ws: DemoWorkspace): Promise<void> {
  const published = () =>
    c.slack.calls.filter(
      (x) => x.method === "views.publish" && x.ok && x.team === ws.id && x.args.user_id === ws.admin,
    );
  const before = published().length;
  await sendEvent(eventsUrl(c), c.signingSecret, ws.id, {
    type: "app_home_opened",
    user: ws.admin,
    channel: "D0HOME",
    tab: "home",
    event_ts: `${Math.floor(Date.now() / 1000)}.000200`,
  });
  const home = await waitFor(() => published()[before], 10_000);
  const open = buttonsIn(home?.args.view).find((b) => b.action_id === "insight.connect.open");
  if (!open) {
    c.problems.push(`${ws.name}: the Home tab showed its admin no Connect button`);
    return;
  }
  c.p.line(`  ${ws.id} admin > opens the app's Home tab: "Connect the Insight Service", presses Connect`);
  const opened = c.slack.views.opened.length;
  await sendInteraction(
    eventsUrl(c),
    c.signingSecret,
    blockActions(ws, open, { container: { type: "view" } }),
  );
  const modal = await waitFor(() => c.slack.views.opened[opened], 10_000);
  const view = modal?.args.view as { callback_id?: string; blocks?: { block_id?: string }[] } | undefined;
  if (!view?.callback_id) {
    c.problems.push(`${ws.name}: Connect opened no modal`);
    return;
  }
  const asks = (block: string) => view.blocks?.some((b) => b.block_id === block) === true;
  const values: Record<string, Record<string, { type: string; value: string }>> = {
    connect_api_key: { api_key: { type: "plain_text_input", value: c.emulator.apiKey } },
  };
  if (asks("connect_base_url"))
    values.connect_base_url = { base_url: { type: "plain_text_input", value: c.emulator.baseUrl } };
  c.p.line(`  ${ws.id} admin > pastes the service's address and API key, presses "Check and save"`);
  const submitted = await sendInteraction(eventsUrl(c), c.signingSecret, {
    type: "view_submission",
    team: { id: ws.id, domain: ws.id.toLowerCase() },
    user: { id: ws.admin, username: "admin", name: "admin", team_id: ws.id },
    api_app_id: "A0STANDIN",
    token: "unused-legacy-token",
    trigger_id: `7012345678901.1234567890123.${randomBytes(16).toString("hex")}`,
    view: {
      id: "V0CONNECT",
      team_id: ws.id,
      type: "modal",
      callback_id: view.callback_id,
      private_metadata: "",
      blocks: view.blocks ?? [],
      state: { values },
      hash: "1732190000.abc",
      app_id: "A0STANDIN",
      bot_id: "B0STANDIN",
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  });
  const url = /(https?:\/\/\S+?\/webhooks\/insight\/[A-Za-z0-9_-]+)/.exec(submitted.body)?.[1];
  if (submitted.status !== 200 || !url) {
    c.problems.push(`${ws.name}: Connect did not show a webhook URL (HTTP ${submitted.status})`);
    return;
  }
  ws.webhookUrl = url;
  c.p.line(`  slack > modal "Insight connected": this workspace's webhook URL ${masked(url)}`);
  c.emulator.webhooks.register({ url, types: ["chatthread-crud", "chatmessage-crud"], groupIds: [GROUP] });
  c.p.note(`(in the service's dashboard: a webhook for ${GROUP_NAME} with ${ws.name}'s URL)`);
}

let seq = 0;

/** `/insight <text>` from a workspace's admin in its channel; the ephemeral reply's text. */
async function command(c: Ctx, ws: DemoWorkspace, text: string): Promise<string> {
  const id = `ws-cmd-${++seq}`;
  c.p.line(`  ${ws.id} admin > /insight ${text}   (in ${ws.channelName})`);
  const status = await sendSlashCommand(eventsUrl(c), c.signingSecret, {
    teamId: ws.id,
    text,
    channelId: ws.channel,
    userId: ws.admin,
    responseUrl: c.slack.responseUrl(id),
  });
  const reply = await waitFor(() => c.slack.responses.find((r) => r.id === id), 15_000);
  if (status !== 200 || !reply) {
    c.problems.push(`${ws.name}: /insight ${text} got no reply (HTTP ${status})`);
    return "";
  }
  await sleep(200);
  return JSON.stringify(reply.body);
}

const cardOf = (c: Ctx, ws: DemoWorkspace, threadId: string): StoredMessage | undefined =>
  c.slack.messages(ws.channel).find((m) => JSON.stringify(m.metadata ?? {}).includes(threadId));

/** Lays two lists of lines out side by side, each clipped to its column. */
export function sideBySide(left: string[], right: string[], width = 58): string[] {
  const clip = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width));
  const rows = Math.max(left.length, right.length);
  return Array.from({ length: rows }, (_, i) =>
    `  ${clip(left[i] ?? "")} | ${clip(right[i] ?? "")}`.trimEnd(),
  );
}

/** mrkdwn as Slack shows it: dates by their fallback, mentions as @id, escapes undone. */
export function readable(mrkdwn: string): string {
  return mrkdwn
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, "$1")
    .replace(/<@([A-Z0-9]+)>/g, "@$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** What a channel shows: each message, its parts one a line. */
function channelLines(c: Ctx, ws: DemoWorkspace): string[] {
  const lines: string[] = [];
  for (const m of c.slack.messages(ws.channel)) {
    const parts = flattenBlocks(m.blocks, m.text)
      .split(" / ")
      .map((s) => readable(s.trim()))
      .filter(Boolean);
    lines.push(`• ${parts[0] ?? ""}${m.updates > 0 ? ` (edited ${m.updates}x)` : ""}`);
    for (const part of parts.slice(1, 8)) lines.push(`  ${part}`);
  }
  return lines;
}

async function tour(c: Ctx): Promise<void> {
  const { p, emulator, slack } = c;
  const [north, south] = WORKSPACES;
  if (!north || !south) return;

  p.step(2, STEPS, `"Add to Slack" in two workspaces: ${north.name} and ${south.name}`);
  for (const ws of WORKSPACES) await install(c, ws);

  p.step(3, STEPS, "Each workspace's admin connects the Insight Service from the Home tab");
  for (const ws of WORKSPACES) await connect(c, ws);
  if (north.webhookUrl && north.webhookUrl === south.webhookUrl)
    c.problems.push("both workspaces were given the same webhook URL");

  p.step(4, STEPS, `Both workspaces follow the same chat group, "${GROUP_NAME}" (${GROUP})`);
  for (const ws of WORKSPACES) {
    const reply = await command(c, ws, `subscribe ${GROUP}`);
    if (!reply.includes("Subscribed")) c.problems.push(`${ws.name}: subscribe did not confirm`);
  }

  p.step(5, STEPS, "The service enriches a new thread: one delivery per workspace's URL, one card in each");
  const before = emulator.webhooks.deliveries().length;
  const { thread } = await emulator.createThread(GROUP, {
    title: "Backups fail after enabling compression",
    summary:
      "Members report nightly backups failing with a checksum error once compression is on. A maintainer is reproducing it.",
    sentiment: "negative",
    keywords: ["backup", "compression", "checksum"],
    isQuestionLed: true,
    questionResponseStatus: "unanswered",
  });
  const cards = await waitFor(() => {
    const found = WORKSPACES.map((ws) => cardOf(c, ws, thread.id));
    return found.every(Boolean) ? found : undefined;
  }, 20_000);
  if (!cards) c.problems.push("the digest did not reach both workspaces' channels within 20 s");
  const sent = emulator.webhooks.deliveries().slice(before);
  p.note(
    `${sent.length} deliveries (one per webhook URL), ${sent.filter((d) => d.ok).length} acknowledged with 2xx`,
  );

  p.step(6, STEPS, `${north.name} marks its card handled: only its own card changes`);
  const northCard = cardOf(c, north, thread.id);
  const northUpdates = northCard?.updates ?? 0;
  const southUpdates = cardOf(c, south, thread.id)?.updates ?? 0;
  const handle = buttonsIn(northCard?.blocks).find((b) => b.action_id === "digest.mark_handled");
  if (northCard && handle) {
    p.line(`  ${north.id} admin > presses "Mark handled" on the card in ${north.channelName}`);
    await sendInteraction(
      eventsUrl(c),
      c.signingSecret,
      blockActions(north, handle, {
        container: {
          type: "message",
          message_ts: northCard.ts,
          channel_id: north.channel,
          is_ephemeral: false,
        },
        channel: { id: north.channel, name: north.channelName.slice(1) },
        response_url: slack.responseUrl(`handle-${north.id}`),
      }),
    );
    const edited = await waitFor(() => {
      const m = cardOf(c, north, thread.id);
      return m && m.updates > northUpdates ? m : undefined;
    }, 10_000);
    if (!edited) c.problems.push(`${north.name}: the card was not edited after Mark handled`);
    await sleep(500); // time for a wrong edit in the other workspace to show, if there were one
    if ((cardOf(c, south, thread.id)?.updates ?? 0) !== southUpdates)
      c.problems.push(`${south.name}'s card changed when ${north.name} marked its own handled`);
  } else c.problems.push(`${north.name}: no card with a Mark handled button`);

  p.step(7, STEPS, "Side by side: what each workspace's channel got");
  const header = WORKSPACES.map((ws) => `${ws.name} ${ws.channelName}`);
  const divider = "-".repeat(58);
  for (const line of sideBySide(
    [header[0] ?? "", divider, ...channelLines(c, north)],
    [header[1] ?? "", divider, ...channelLines(c, south)],
  ))
    p.line(line);

  // Isolation: every call into a workspace's channel was made with that workspace's token.
  p.line("");
  for (const ws of WORKSPACES) {
    const other = WORKSPACES.find((o) => o !== ws);
    const intoChannel = slack.calls.filter((x) => x.ok && x.args.channel === ws.channel);
    const foreign = intoChannel.filter((x) => x.team !== ws.id);
    const sawOther =
      other !== undefined && slack.messages(ws.channel).some((m) => JSON.stringify(m).includes(other.admin));
    if (foreign.length > 0 || sawOther)
      c.problems.push(`${ws.name}'s channel got something of another workspace`);
    else
      p.note(
        `${ws.name}: ${intoChannel.length} Slack calls into ${ws.channelName}, all with its own token; nothing of ${other?.name ?? "the other"}`,
      );
  }
  const listed = await command(c, south, "list");
  if (listed.includes(north.channel) || listed.includes("Handled"))
    c.problems.push(`${south.name}'s /insight list shows ${north.name}'s state`);
  else p.note(`${south.name}'s /insight list shows only its own subscription`);
}

/** The two-workspace tour; never throws. */
export async function runWorkspacesTour(o: TourOptions): Promise<TourResult> {
  mkdirSync(o.outDir, { recursive: true });
  const blocksFile = join(o.outDir, "slack-blocks.jsonl");
  const logFile = join(o.outDir, "app.log");
  writeFileSync(blocksFile, "");
  writeFileSync(logFile, "");
  const names = Object.fromEntries(WORKSPACES.map((ws) => [ws.channel, ws.channelName]));
  const p = createPrinter(o.write, names);
  const problems: string[] = [];
  const spoolDir = mkdtempSync(join(tmpdir(), "insight-relay-demo-spool-"));
  const cleanups: (() => Promise<void>)[] = [];
  try {
    p.step(1, STEPS, "Start the Insight Service emulator, a stand-in Slack with two workspaces, and the app");
    const emulator = await startEmulator();
    cleanups.push(() => emulator.close());
    const client = {
      id: `${Date.now()}.${randomBytes(4).readUInt32BE()}`,
      secret: randomBytes(16).toString("hex"),
    };
    const slack = await startSlackStandIn({
      print: true,
      blocksFile,
      // Home tabs and modals are told by the tour itself; channel posts print as they happen.
      out: (line) => {
        if (line.startsWith("#")) p.slack(line);
      },
      oauthClient: client,
      workspaces: WORKSPACES.map((ws) => ({ teamId: ws.id, teamName: ws.name, installerId: ws.admin })),
    });
    cleanups.push(() => slack.close());

    const signingSecret = randomBytes(16).toString("hex");
    // The redirect URL Slack sends the browser back to must be known before the app listens.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const parsed = loadConfig({
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_CLIENT_ID: client.id,
      SLACK_CLIENT_SECRET: client.secret,
      SLACK_STATE_SECRET: randomBytes(24).toString("hex"),
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      SLACK_API_URL: slack.url,
      PUBLIC_URL: base,
      WEBHOOK_SECRET: randomBytes(16).toString("hex"),
      REDIS_URL: o.redisUrl,
      REDIS_PREFIX: o.prefix,
      PORT: String(port),
      SPOOL_DIR: spoolDir,
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
      // As the single-workspace tour: a tenth of production's gathering.
      intakeLingerMs: 100,
    });
    cleanups.push(() => closeServices(services));
    const running = await startRoles(services);
    cleanups.push(() => running.stop());
    p.note(`Insight emulator ${emulator.baseUrl}/api/v1/  (seeded: 3 communities, 7 chat groups)`);
    p.note(`Slack (stand-in) ${slack.url}  (two workspaces: ${WORKSPACES.map((w) => w.name).join(", ")})`);
    p.note(`Insight Relay    ${base}  (multi-workspace mode: "Add to Slack"; keys under "${o.prefix}:")`);

    await tour({ emulator, slack, base, signingSecret, p, problems });

    for (const r of slack.responses) {
      appendFileSync(
        blocksFile,
        `${JSON.stringify({ method: "response_url", id: r.id, ...(r.body as object) })}\n`,
      );
    }
    p.line("\nWhere to look");
    p.note(`Block Kit JSON of every post, edit and reply: ${shownPath(blocksFile)}`);
    p.note(`the app's JSON logs (each line of a workspace's work names it): ${shownPath(logFile)}`);
    if (o.keepUntil) {
      p.line("\nStill running (Ctrl-C stops everything):");
      p.note(`Add to Slack  ${base}/slack/install`);
      p.note(`metrics       ${base}/metrics`);
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
