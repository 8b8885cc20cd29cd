/*
 * Pictures for the README: a thread digest (new and re-enriched), a compact card, a batched
 * digest (digest mode), a weekly summary and the weekly chart, and an answer of the assistant
 * (docs/ask.md), as they look in Slack. The messages come from the app's own path, not from
 * hand-built blocks: the emulator sends real webhooks, the Insight client reads the listing,
 * buildThreadDigest/renderThreadDigest, mergePending/groupBatch/renderBatchedDigest and
 * summarizeGroup/renderWeeklyReport make the Block Kit, and src/weekly/chart.ts draws the chart. A small Block Kit -> HTML renderer below then
 * dresses each message like Slack, and headless Chromium photographs it.
 *
 *   npm run docs:pictures            (needs Chromium: apt-get install -y chromium)
 *   CHROMIUM_PATH=/path/to/chrome npm run docs:pictures
 *
 * The clock is fixed, so the pictures only change when the app's output does.
 */
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { startEmulator, SEED, type Emulator } from "../dev/emulator/index.js";
import { askQuestion } from "../src/ask/ask-question.js";
import { CommunityReader } from "../src/ask/community-reader.js";
import type { AskDeps } from "../src/ask/deps.js";
import { InsightClient } from "../src/insight/client.js";
import { webhookEventSchema, type ThreadEvent } from "../src/insight/schemas.js";
import {
  entryVersion,
  groupBatch,
  mergePending,
  periodStartOf,
  type PendingEntry,
} from "../src/domain/digest-batch.js";
import { cardFactsOf, changeSinceCard } from "../src/domain/thread-change.js";
import { buildThreadDigest } from "../src/domain/thread-digest.js";
import type { WeeklyReport } from "../src/domain/weekly-report.js";
import { weekWindow } from "../src/domain/weekly-window.js";
import { ThreadLookup } from "../src/jobs/thread-lookup.js";
import { silentLogger } from "../src/log.js";
import type { KnownBlock } from "../src/slack/render/known-blocks.js";
import { renderBatchedDigest } from "../src/slack/render/batched-digest.js";
import { renderThreadDigest } from "../src/slack/render/thread-digest.js";
import { renderWeeklyReport } from "../src/slack/render/weekly-summary.js";
import { renderSentimentChart, sentimentChartInput } from "../src/weekly/chart.js";
import { summarizeGroup } from "../src/weekly/summarize-group.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "docs", "images");
const require = createRequire(import.meta.url);

const GROUP = SEED.groups.support;
const TIME_ZONE = "Europe/Berlin";
const HOUR = 3_600_000;
/** Friday afternoon: the digest; the weekly summary follows on Monday 09:00 Berlin time. */
const DIGEST_AT = Date.parse("2026-03-13T14:05:00Z");
const UPDATED_AT = DIGEST_AT + 2 * HOUR + 25 * 60_000;
const WEEKLY_AT = Date.parse("2026-03-16T08:00:00Z");
/** A daily digest (`--mode digest`) posted at 09:00 Berlin time, covering the day before. */
const BATCH_AT = Date.parse("2026-03-13T08:00:00Z");
/** Monday morning, after the weekly summary: a question to the assistant. */
const ASK_AT = Date.parse("2026-03-16T09:40:00Z");
const ASK_QUESTION = "What are people unhappy about this week?";
const WIDTH = 700;

// --- Block Kit -> HTML that looks like Slack ------------------------------------------------

/** The shortcodes the renderers use (grep `:[a-z_]+:` in src/slack/render and src/domain). */
const EMOJI: Record<string, string> = {
  arrows_counterclockwise: "🔄",
  ballot_box_with_check: "☑️",
  bell: "🔔",
  bust_in_silhouette: "👤",
  clock3: "🕒",
  information_source: "ℹ️",
  busts_in_silhouette: "👥",
  calendar: "📆",
  grey_question: "❔",
  hourglass_flowing_sand: "⏳",
  large_green_circle: "🟢",
  large_orange_diamond: "🔶",
  large_yellow_circle: "🟡",
  mag: "🔍",
  no_entry: "⛔",
  pause_button: "⏸️",
  question: "❓",
  red_circle: "🔴",
  speech_balloon: "💬",
  warning: "⚠️",
  white_check_mark: "✅",
  white_circle: "⚪",
  x: "❌",
  zzz: "💤",
};

const dataUrl = (file: string, type: string) =>
  `data:${type};base64,${readFileSync(file).toString("base64")}`;

/** Slack draws emoji as images; Twemoji's SVGs do the same here, whatever fonts the machine has. */
function emojiImg(char: string): string {
  const code = [...char]
    .map((c) => c.codePointAt(0)?.toString(16) ?? "")
    .filter((c) => c !== "fe0f")
    .join("-");
  try {
    const src = dataUrl(require.resolve(`@twemoji/svg/${code}.svg`), "image/svg+xml");
    return `<img class="emoji" alt="${char}" src="${src}">`;
  } catch {
    return char;
  }
}

const html = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** Slack's three entities, back to the characters they stand for. */
const unescapeSlack = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const emoji = (s: string) =>
  s.replace(/:([a-z0-9_+-]+):/g, (m, name: string) => (EMOJI[name] ? emojiImg(EMOJI[name]) : m));

/** Bold, italic and strike on HTML-escaped text, at word edges as Slack has them. */
function styles(s: string): string {
  const mark = (ch: string) =>
    new RegExp(`(^|[^\\w${ch}])\\${ch}(?!\\s)([^${ch}\\n]+?)(?<!\\s)\\${ch}(?![\\w${ch}])`, "g");
  return s
    .replace(mark("*"), "$1<b>$2</b>")
    .replace(mark("_"), "$1<i>$2</i>")
    .replace(mark("~"), "$1<s>$2</s>");
}

/** Text between Slack's own `<…>` tokens: entities decoded, `code` spans kept verbatim. */
function inline(text: string): string {
  return unescapeSlack(text)
    .split(/(`[^`\n]+`)/)
    .map((part) =>
      part.length > 2 && part.startsWith("`") && part.endsWith("`")
        ? `<code>${html(part.slice(1, -1))}</code>`
        : emoji(styles(html(part))),
    )
    .join("");
}

/** The people of the pictures: Slack shows a user mention as the person's name. */
const PEOPLE: Record<string, string> = { U0MAYA: "Maya", U0SAM: "Sam" };
/** ...and a channel link as the channel's name. */
const CHANNELS: Record<string, string> = { C0COMMUNITY: "community-insights" };

/** `<!date^…>` as a reader in TIME_ZONE sees it ("Mar 13 at 16:31"). */
function slackDateText(seconds: number, format: string): string {
  const at = new Date(seconds * 1000);
  const part = (o: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("en-US", { timeZone: TIME_ZONE, ...o }).format(at);
  return format
    .replace("{date_short_pretty}", part({ month: "short", day: "numeric" }))
    .replace("{date_short}", part({ month: "short", day: "numeric", year: "numeric" }))
    .replace("{time}", part({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }));
}

/** A `<…>` token: links show their label, channel and user ids show as mentions, dates as dates. */
function token(t: string): string {
  const [target = "", label] = t.slice(1, -1).split("|");
  const date = /^!date\^(\d+)\^([^|]*)$/.exec(target);
  if (date) return html(slackDateText(Number(date[1]), date[2] ?? ""));
  if (target.startsWith("#")) {
    return `<span class="mention">#${html(label ?? CHANNELS[target.slice(1)] ?? "channel")}</span>`;
  }
  if (target.startsWith("@"))
    return `<span class="mention">@${html(label ?? PEOPLE[target.slice(1)] ?? "user")}</span>`;
  return `<span class="link">${inline(label ?? target)}</span>`;
}

function mrkdwn(text: string): string {
  return text
    .split(/(<[^<>\n]+>)/)
    .map((p) => (p.startsWith("<") && p.endsWith(">") ? token(p) : inline(p)))
    .join("")
    .replace(/\n/g, "<br>");
}

interface TextObject {
  type: string;
  text: string;
}

const textHtml = (t: TextObject) => (t.type === "mrkdwn" ? mrkdwn(t.text) : emoji(html(t.text)));

const isText = (t: unknown): t is TextObject =>
  typeof t === "object" && t !== null && typeof (t as { text?: unknown }).text === "string";

/** Buttons, text and images inside context, actions and accessories. */
function elementHtml(e: unknown): string {
  const el = e as { type?: string; text?: unknown; style?: string };
  if (el.type === "button" && isText(el.text)) {
    return `<span class="button ${html(el.style ?? "")}">${textHtml(el.text)}</span>`;
  }
  // A users_select: the chosen person, or its placeholder.
  if (el.type === "users_select") {
    const sel = e as { initial_user?: string; placeholder?: { text?: string } };
    const shownName = sel.initial_user
      ? (PEOPLE[sel.initial_user] ?? "someone")
      : (sel.placeholder?.text ?? "");
    return `<span class="button select">${html(shownName)} ▾</span>`;
  }
  // Nothing is fetched while photographing: an image shows as a placeholder.
  if (el.type === "image") return `<span class="thumb"></span>`;
  if (isText(e)) return `<span>${textHtml(e)}</span>`;
  return "";
}

function blockHtml(b: KnownBlock): string {
  switch (b.type) {
    case "header":
      return `<div class="header">${textHtml(b.text)}</div>`;
    case "divider":
      return `<hr>`;
    case "context":
      return `<div class="context">${b.elements.map(elementHtml).join("")}</div>`;
    case "actions":
      return `<div class="actions">${b.elements.map(elementHtml).join("")}</div>`;
    case "section": {
      const text = b.text ? `<div class="text">${textHtml(b.text)}</div>` : "";
      const fields = b.fields?.length
        ? `<div class="fields">${b.fields.map((f) => `<div>${textHtml(f)}</div>`).join("")}</div>`
        : "";
      const accessory = b.accessory ? `<div class="accessory">${elementHtml(b.accessory)}</div>` : "";
      return `<div class="section"><div class="main">${text}${fields}</div>${accessory}</div>`;
    }
    default:
      return `<div class="section"><i>(${html(b.type)} block)</i></div>`;
  }
}

/** The app's avatar: a square with a relay of bars, in Slack's aubergine. */
const AVATAR = `<svg class="avatar" viewBox="0 0 36 36" xmlns="http://www.w3.org/2000/svg">
<rect width="36" height="36" rx="6" fill="#4A154B"/>
<rect x="8" y="17" width="5" height="11" rx="1.5" fill="#36C5F0"/>
<rect x="15.5" y="11" width="5" height="17" rx="1.5" fill="#2EB67D"/>
<rect x="23" y="7" width="5" height="21" rx="1.5" fill="#ECB22E"/></svg>`;

function fontFace(weight: number, style: "normal" | "italic"): string {
  const file = require.resolve(`@fontsource/lato/files/lato-latin-${weight}-${style}.woff2`);
  return `@font-face{font-family:Lato;font-weight:${weight};font-style:${style};src:url(${dataUrl(file, "font/woff2")}) format("woff2")}`;
}

const CSS = `
${fontFace(400, "normal")}${fontFace(400, "italic")}${fontFace(700, "normal")}${fontFace(700, "italic")}${fontFace(900, "normal")}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:#1d1c1d;font:15px/1.46668 Lato,"DejaVu Sans",sans-serif;-webkit-font-smoothing:antialiased}
#shot{width:${WIDTH}px;padding:0 0 8px}
.channel{padding:12px 20px;border-bottom:1px solid #e8e8e8;font-weight:900;font-size:17px}
.channel span{color:#616061;font-weight:400;font-size:13px;margin-left:8px}
.msg{display:flex;padding:12px 20px 4px}
.avatar{width:36px;height:36px;flex:none;margin:4px 8px 0 0}
.content{flex:1;min-width:0}
.who{display:flex;align-items:baseline;gap:4px}
.name{font-weight:900}
.badge{font-size:10px;font-weight:700;line-height:1.25;color:rgba(29,28,29,.7);background:rgba(29,28,29,.13);border-radius:2px;padding:1px 3px;position:relative;top:-1px}
.time{font-size:12px;color:#616061;margin-left:4px}
.header{font-size:18px;font-weight:900;line-height:1.33;margin:4px 0 6px}
.section{display:flex;gap:12px;align-items:flex-start;margin:6px 0}
.section .main{flex:1;min-width:0}
.fields{display:grid;grid-template-columns:1fr 1fr;gap:6px 16px;margin-top:2px}
.context{display:flex;flex-wrap:wrap;gap:2px 12px;align-items:center;font-size:12px;line-height:1.5;color:#616061;margin:8px 0 4px}
.context .emoji{width:16px;height:16px;vertical-align:-3px}
.emoji{width:20px;height:20px;vertical-align:-4px;margin:0 1px}
code{font:12px/1.5 Monaco,Menlo,"DejaVu Sans Mono",monospace;color:#e01e5a;background:rgba(29,28,29,.04);border:1px solid rgba(29,28,29,.13);border-radius:3px;padding:2px 3px 1px}
.mention{color:#1264a3;background:rgba(29,155,209,.1);border-radius:3px;padding:0 2px}
.link{color:#1264a3}
.button{display:inline-flex;align-items:center;height:28px;padding:0 12px;border:1px solid rgba(29,28,29,.3);border-radius:4px;font-size:13px;font-weight:700;white-space:nowrap;background:#fff}
.thumb{display:inline-block;width:20px;height:20px;border-radius:4px;background:#e8e8e8}
.button.primary{background:#007a5a;border-color:#007a5a;color:#fff}
.button.danger{color:#e01e5a}
.button.select{font-weight:400;min-width:90px;justify-content:space-between}
.actions{display:flex;gap:8px;margin:8px 0}
hr{border:0;border-top:1px solid rgba(29,28,29,.13);margin:12px 0}
.edited{display:block;font-size:12px;line-height:1.2;color:#616061;margin-top:-2px}
.person{width:36px;height:36px;flex:none;margin:4px 8px 0 0;border-radius:6px;background:#2eb67d;color:#fff;font-weight:900;display:flex;align-items:center;justify-content:center}
`;

interface SlackPicture {
  blocks: KnownBlock[];
  /** When the message was posted, shown like Slack next to the name. */
  postedAt: number;
  edited?: boolean;
  /** A person's question the message answers, shown above it (the assistant's thread). */
  asked?: { who: string; text: string };
  /** The conversation's name in the header; default the channel's. */
  where?: string;
}

function slackPage(p: SlackPicture): string {
  const time = new Intl.DateTimeFormat("en-US", { timeZone: TIME_ZONE, hour: "numeric", minute: "2-digit" });
  const edited = p.edited ? `<span class="edited">(edited)</span>` : "";
  const where = p.where ?? `# community-insights<span>Lumen DB community health</span>`;
  const asked = p.asked
    ? `<div class="msg"><div class="person">${html(p.asked.who.slice(0, 1))}</div><div class="content">
<div class="who"><span class="name">${html(p.asked.who)}</span><span class="time">${time.format(p.postedAt - 60_000)}</span></div>
<div class="text">${html(p.asked.text)}</div></div></div>`
    : "";
  return `<!doctype html><html><head><meta charset="utf-8"><style>${CSS}</style></head><body>
<div id="shot">
<div class="channel">${where}</div>
${asked}
<div class="msg">${AVATAR}<div class="content">
<div class="who"><span class="name">Insight Relay</span><span class="badge">APP</span><span class="time">${time.format(p.postedAt)}</span></div>
${p.blocks.map(blockHtml).join("\n")}${edited}
</div></div></div></body></html>`;
}

// --- The messages, made by the app's own code -------------------------------------------------

/** Receives the emulator's webhooks, as the app's web role would. */
async function webhookInbox() {
  const events: ThreadEvent[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const event = webhookEventSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      if (event.webhookType === "chatthread-crud") events.push(event);
      res.writeHead(200).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/insight`,
    last(threadId: string): ThreadEvent {
      const e = events.filter((x) => x.payload.threadId === threadId).at(-1);
      if (!e) throw new Error(`no webhook arrived for thread ${threadId}`);
      return e;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Clock {
  now: number;
}

/** A thread arrives, is enriched, then re-enriched: the digest as posted, and as edited. */
async function digests(emu: Emulator, client: InsightClient, clock: Clock) {
  const inbox = await webhookInbox();
  emu.webhooks.register({ url: inbox.url, types: ["chatthread-crud"], groupIds: [GROUP] });
  const lookup = new ThreadLookup(client, { now: () => clock.now });
  try {
    clock.now = DIGEST_AT;
    const { thread } = await emu.createThread(GROUP, {
      title: "Replicas fall minutes behind after upgrading to 0.15",
      summary:
        "Since upgrading to 0.15.0, several members see read replicas lag 3–5 minutes behind the primary under steady writes. A maintainer asked for their `checkpoint_interval` settings and WAL logs; two others confirmed the same on ARM64 & x86.",
      sentiment: "negative",
      keywords: ["replication", "upgrade", "checkpoint", "WAL", "lag"],
      isQuestionLed: true,
      questionResponseStatus: "pending",
      messageCount: 14,
      participantCount: 6,
      firstMessageDate: new Date(DIGEST_AT - 26 * HOUR).toISOString(),
      lastMessageDate: new Date(DIGEST_AT - 12 * 60_000).toISOString(),
    });
    const created = buildThreadDigest(
      inbox.last(thread.id),
      await lookup.find(GROUP, thread.id, { fresh: true }),
    );

    clock.now = UPDATED_AT;
    await emu.enrichThread(GROUP, thread.id, {
      summary:
        "Fixed in 0.15.1: the lag came from a changed `checkpoint_interval` default. Upgrading resolved it for everyone who reported it, and the release notes now call out the change.",
      sentiment: "positive",
      keywords: ["replication", "upgrade", "checkpoint", "release", "WAL"],
      questionResponseStatus: "answered",
      messageCount: 21,
      participantCount: 8,
      lastMessageDate: new Date(UPDATED_AT - 9 * 60_000).toISOString(),
    });
    const updated = buildThreadDigest(
      inbox.last(thread.id),
      await lookup.find(GROUP, thread.id, { fresh: true }),
    );
    // Between the two enrichments Maya marked it handled and assigned it to Sam; Sam follows it.
    const triage = {
      handled: { by: "U0MAYA", atMs: DIGEST_AT + 40 * 60_000 },
      assignee: { user: "U0SAM", by: "U0MAYA", atMs: DIGEST_AT + 41 * 60_000 },
      followers: 1,
    };
    const change = changeSinceCard(cardFactsOf(created), cardFactsOf(updated), {
      triage,
      enrichedAtMs: UPDATED_AT,
    });
    return {
      created: renderThreadDigest(created, { now: new Date(DIGEST_AT) }),
      updated: renderThreadDigest(updated, { now: new Date(UPDATED_AT), triage, change }),
      compact: renderThreadDigest(updated, { format: "compact", triage: { followers: 0 } }),
    };
  } finally {
    await inbox.close();
  }
}

/** What happens to a thread in the day a batched digest covers. */
interface DayThread {
  title: string;
  summary: string;
  sentiment: string;
  keywords: string[];
  /** "" when the thread is not question-led. */
  question: "" | "answered" | "pending" | "unanswered";
  messages: number;
  participants: number;
  /** Hours before the digest the thread started; over 24: before the period (a changed thread). */
  startedHoursAgo: number;
  /** Re-enriched during the period, hours before the digest, with these changes. */
  later?: { hoursAgo: number; changes: Partial<Omit<DayThread, "later" | "startedHoursAgo">> };
}

// prettier-ignore
const DAY: DayThread[] = [
  { title: "Backups to S3 twice as slow since 0.15", summary: "Nightly backups to S3 take twice as long since 0.15.", sentiment: "negative", keywords: ["backup", "s3", "upgrade"], question: "unanswered", messages: 3, participants: 2, startedHoursAgo: 5 },
  { title: "Kubernetes operator fails to upgrade the StatefulSet", summary: "The operator stops halfway through a rolling upgrade.", sentiment: "mixed", keywords: ["kubernetes", "upgrade", "operator"], question: "pending", messages: 9, participants: 5, startedHoursAgo: 11 },
  { title: "Can one bucket have two retention policies?", summary: "A member wants raw data for a week and hourly data for a year.", sentiment: "neutral", keywords: ["retention", "configuration"], question: "unanswered", messages: 2, participants: 2, startedHoursAgo: 3 },
  { title: "Thanks for the new query planner!", summary: "Several members report faster dashboards after 0.15.", sentiment: "positive", keywords: ["release", "query planner"], question: "", messages: 4, participants: 4, startedHoursAgo: 20 },
  { title: "Compaction stalls on a 2 TB dataset", summary: "Compaction never finishes on a large dataset.", sentiment: "negative", keywords: ["compaction", "performance", "disk usage"], question: "pending", messages: 9, participants: 3, startedHoursAgo: 40,
    later: { hoursAgo: 2, changes: { messages: 14, participants: 5, summary: "Two more members see compaction stall above 1.5 TB; a maintainer is reproducing it." } } },
  { title: "Grafana panel shows gaps after the 0.15 upgrade", summary: "Dashboards show gaps since the upgrade.", sentiment: "neutral", keywords: ["grafana", "upgrade", "dashboards"], question: "", messages: 5, participants: 3, startedHoursAgo: 30,
    later: { hoursAgo: 7, changes: { messages: 9, participants: 4, sentiment: "mixed" } } },
  { title: "Query timeouts after enabling TLS", summary: "Queries time out once TLS is on between nodes.", sentiment: "negative", keywords: ["tls", "queries"], question: "pending", messages: 8, participants: 3, startedHoursAgo: 50,
    later: { hoursAgo: 9, changes: { question: "answered", messages: 11, participants: 4, sentiment: "positive", summary: "Raising the handshake timeout fixed it; the docs now say so." } } },
  { title: "Where are the ARM64 images?", summary: "A member could not find the ARM64 images.", sentiment: "neutral", keywords: ["docker", "arm64"], question: "unanswered", messages: 2, participants: 2, startedHoursAgo: 15,
    later: { hoursAgo: 13, changes: { question: "answered", messages: 4, participants: 3, sentiment: "positive" } } },
];

const threadFields = (t: Partial<Omit<DayThread, "later" | "startedHoursAgo">>) => ({
  ...(t.title !== undefined ? { title: t.title } : {}),
  ...(t.summary !== undefined ? { summary: t.summary } : {}),
  ...(t.sentiment !== undefined ? { sentiment: t.sentiment } : {}),
  ...(t.keywords !== undefined ? { keywords: t.keywords } : {}),
  ...(t.question !== undefined
    ? { isQuestionLed: t.question !== "", questionResponseStatus: t.question || "answered" }
    : {}),
  ...(t.messages !== undefined ? { messageCount: t.messages } : {}),
  ...(t.participants !== undefined ? { participantCount: t.participants } : {}),
});

/**
 * One day of the group in a daily digest: threads started that day (new), older ones re-enriched
 * (changed) and questions answered since (handled). Each enrichment webhook of the period goes
 * through buildThreadDigest and mergePending as routing and the pending set apply them; a
 * thread started before the period was shown by the previous digest, so only its later
 * enrichment is pending. Its own emulator: the weekly picture keeps its week.
 */
async function batchedDigest(clock: Clock) {
  const emu = await startEmulator({ now: () => new Date(clock.now), webhookTimeoutMs: 5_000 });
  const client = new InsightClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, logger: silentLogger });
  const inbox = await webhookInbox();
  emu.webhooks.register({ url: inbox.url, types: ["chatthread-crud"], groupIds: [GROUP] });
  try {
    const lookup = new ThreadLookup(client, { now: () => clock.now });
    const periodStart = periodStartOf("24h", BATCH_AT, TIME_ZONE);
    const pending = new Map<string, PendingEntry>();
    const arrive = async (threadId: string) => {
      const digest = buildThreadDigest(
        inbox.last(threadId),
        await lookup.find(GROUP, threadId, { fresh: true }),
      );
      const incoming: PendingEntry = {
        digest,
        version: entryVersion(clock.now, Boolean(digest.sentiment)),
        isNew: digest.action === "created",
        firstSeenMs: clock.now,
      };
      const merged = mergePending(pending.get(threadId), incoming);
      if (merged) pending.set(threadId, merged);
    };
    // Events in the order they happened.
    type Step = { at: number; run: () => Promise<void> };
    const steps: Step[] = [];
    const ids = new Map<DayThread, string>();
    for (const t of DAY) {
      const started = BATCH_AT - t.startedHoursAgo * HOUR;
      steps.push({
        at: started,
        run: async () => {
          const last = new Date(t.later ? started + HOUR : clock.now - 10 * 60_000).toISOString();
          const { thread } = await emu.createThread(GROUP, {
            ...threadFields(t),
            firstMessageDate: new Date(started - 20 * 60_000).toISOString(),
            lastMessageDate: last,
          });
          ids.set(t, thread.id);
          if (started >= periodStart) await arrive(thread.id);
        },
      });
      const later = t.later;
      if (later) {
        steps.push({
          at: BATCH_AT - later.hoursAgo * HOUR,
          run: async () => {
            const id = ids.get(t) ?? "";
            await emu.enrichThread(GROUP, id, {
              ...threadFields(later.changes),
              lastMessageDate: new Date(clock.now - 5 * 60_000).toISOString(),
            });
            await arrive(id);
          },
        });
      }
    }
    for (const step of steps.sort((a, b) => a.at - b.at)) {
      clock.now = step.at;
      await step.run();
    }
    const entries = [...pending.values()];
    return renderBatchedDigest({
      batch: groupBatch(entries),
      groupNames: new Map([[GROUP, emu.store.group(GROUP)?.name ?? "Lumen DB Support"]]),
      // As the flush has it: the period's start, or an older thread's arrival.
      sinceMs: Math.min(periodStart, ...entries.map((e) => e.firstSeenMs)),
    });
  } finally {
    await inbox.close();
    await client.close();
    await emu.close();
  }
}

/**
 * Title, sentiment, keywords, question status ("" when not question-led), messages, last activity
 * in hours before the weekly run, and the hours the thread ran before that.
 */
type WeekThread = [
  string,
  string,
  string[],
  "" | "answered" | "pending" | "unanswered",
  number,
  number,
  number,
];

/** This week's threads beyond the seed's few: distinct titles, as a busy support group has. */
// prettier-ignore
const WEEK: WeekThread[] = [
  ["Compaction stalls on a 2 TB dataset", "negative", ["compaction", "performance", "disk usage"], "pending", 17, 30, 40],
  ["Kubernetes operator fails to upgrade the StatefulSet", "mixed", ["kubernetes", "upgrade", "operator"], "pending", 15, 52, 30],
  ["Go client leaks goroutines on context cancel", "negative", ["go client", "concurrency"], "unanswered", 2, 101, 3],
  ["Backups to S3 twice as slow since 0.15", "negative", ["backup", "s3", "upgrade"], "unanswered", 3, 77, 5],
  ["Best practice for retention with many tenants?", "neutral", ["retention", "multi-tenant", "configuration"], "answered", 12, 20, 26],
  ["Grafana panel shows gaps after the 0.15 upgrade", "mixed", ["grafana", "upgrade", "dashboards"], "answered", 10, 44, 12],
  ["How do I downsample old data automatically?", "neutral", ["retention", "downsampling"], "answered", 9, 125, 20],
  ["Disk usage keeps growing after deletes", "mixed", ["disk usage", "compaction", "deletes"], "answered", 13, 146, 18],
  ["Thanks for the new query planner!", "positive", ["release", "query planner"], "", 6, 8, 10],
  ["Sharing our ingestion benchmark results", "positive", ["benchmark", "ingestion", "compaction"], "", 11, 60, 20],
  ["ARM64 image starts fine now, thank you", "positive", ["docker", "arm64"], "", 4, 95, 6],
  ["Docs: the continuous query example is outdated", "neutral", ["docs", "continuous queries"], "", 3, 116, 4],
];

/** The seed's untrusted-text fixture is for tests; in a picture it would only distract. */
function tameFixture(emu: Emulator): void {
  emu.store.updateThread(GROUP, SEED.threads.injection, {
    title: "Alert bot pings the whole channel on every restart",
    summary: "The alert bot mentions everyone when it restarts; a maintainer suggested muting restarts.",
    keywords: ["alerts", "bot", "notifications"],
  });
}

/** A busier fortnight than the seed alone has, so the counts, lists and chart have something to show. */
function fillWeeks(emu: Emulator): void {
  tameFixture(emu);
  for (const [title, sentiment, keywords, status, messages, hoursAgo, spanHours] of WEEK) {
    const last = WEEKLY_AT - hoursAgo * HOUR;
    emu.store.addThread(GROUP, {
      title,
      sentiment,
      keywords,
      isQuestionLed: status !== "",
      questionResponseStatus: status || "answered",
      messageCount: messages,
      participantCount: Math.min(messages, 2 + Math.floor(messages / 3)),
      firstMessageDate: new Date(last - spanHours * HOUR).toISOString(),
      lastMessageDate: new Date(last).toISOString(),
    });
  }
  // The week before: the seed's generated threads, a few more of them.
  for (let h = 7 * 24 + 5; h < 14 * 24; h += 17) {
    emu.store.addThread(GROUP, { lastMessageDate: new Date(WEEKLY_AT - h * HOUR).toISOString() });
  }
}

async function weekly(emu: Emulator, client: InsightClient, clock: Clock) {
  clock.now = WEEKLY_AT;
  fillWeeks(emu);
  const window = weekWindow(WEEKLY_AT, TIME_ZONE);
  const group = { groupId: GROUP, groupName: emu.store.group(GROUP)?.name ?? "Lumen DB Support" };
  const { outcome } = await summarizeGroup({ client, logger: silentLogger }, group, window);
  if (outcome.kind !== "summary") throw new Error(`the week of ${GROUP} came out ${outcome.kind}`);
  const report: WeeklyReport = { channelId: "C0COMMUNITY", window, timeZone: TIME_ZONE, groups: [outcome] };
  const message = renderWeeklyReport(report);
  const chart = await renderSentimentChart(sentimentChartInput(outcome.week, window));
  return { message, chart };
}

/**
 * The assistant's answer to a question on Monday morning, after the same busy week the weekly
 * summary shows: askQuestion reads it, answers from the emulator's listing and renders it.
 */
async function askAnswer(emu: Emulator, client: InsightClient, clock: Clock) {
  clock.now = ASK_AT;
  // The week's threads were added without summaries of their own (the weekly picture shows none).
  for (const t of emu.store.threads(GROUP)) {
    const summary = ASK_SUMMARIES[t.title];
    if (summary) emu.store.updateThread(GROUP, t.id, { summary });
  }
  const name = "Lumen DB Support";
  const follows = [{ channelId: "C0COMMUNITY", groupId: GROUP, groupName: name }];
  const deps: AskDeps = {
    insight: client,
    reader: new CommunityReader(client, { now: () => clock.now }),
    subscriptions: {
      forChannel: async (c) => follows.filter((f) => f.channelId === c).map((f) => ({ ...f, ...SUB_FIELDS })),
      all: async () => follows.map((f) => ({ ...f, ...SUB_FIELDS })),
    },
    conversations: {
      context: async () => ({ channelId: "C0COMMUNITY" }),
      saveContext: async () => undefined,
      memory: async () => undefined,
      remember: async () => undefined,
      firstQuestion: async () => true,
      take: async () => true,
    },
    timeZones: { of: async () => TIME_ZONE },
    slack: {
      call: async () => {
        throw new Error("no Slack here");
      },
      postMessage: async () => {
        throw new Error("no Slack here");
      },
    },
    reportInsightError: async () => undefined,
    logger: silentLogger,
    now: () => clock.now,
  };
  const { reply } = await askQuestion(deps, {
    text: ASK_QUESTION,
    userId: "U0MAYA",
    channelId: "C0COMMUNITY",
  });
  return reply;
}

/** What the service would say of this week's unhappy threads. */
const ASK_SUMMARIES: Record<string, string> = {
  "Compaction stalls on a 2 TB dataset":
    "Compaction never finishes on datasets above 1.5 TB; disk usage keeps climbing. A maintainer is reproducing it and asked for the compaction logs.",
  "Backups to S3 twice as slow since 0.15":
    "Nightly backups to S3 take twice as long since upgrading to 0.15. Nobody has answered yet.",
  "Go client leaks goroutines on context cancel":
    "Cancelling a query's context in the Go client leaves a goroutine behind per query; memory grows until restart. No reply yet.",
  "Kubernetes operator fails to upgrade the StatefulSet":
    "The operator stops halfway through a rolling upgrade and leaves pods on two versions. Two members shared workarounds; the root cause is open.",
};

const SUB_FIELDS = {
  communityId: undefined,
  filters: {},
  createdBy: "U0MAYA",
  createdAt: "2026-01-05T09:00:00.000Z",
};

// --- Photographs -------------------------------------------------------------------------------

function browserPath(): string {
  const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error(
      `No Chromium at ${path}. Install it (apt-get update && apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

async function shoot(browser: BrowserContext, picture: SlackPicture, file: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setContent(slackPage(picture), { waitUntil: "load" });
    // A string: the script is typed for Node, without the DOM library.
    await page.evaluate("document.fonts.ready.then(() => true)");
    await page.locator("#shot").screenshot({ path: file });
  } finally {
    await page.close();
  }
}

function report(file: string): void {
  const kb = Math.round(readFileSync(file).length / 1024);
  console.log(`  ${relative(ROOT, file)} (${kb} KB)`);
}

async function main(): Promise<void> {
  const executablePath = browserPath();
  mkdirSync(OUT, { recursive: true });
  const clock: Clock = { now: DIGEST_AT };
  const emu = await startEmulator({ now: () => new Date(clock.now), webhookTimeoutMs: 5_000 });
  const client = new InsightClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, logger: silentLogger });
  const profile = mkdtempSync(join(tmpdir(), "docs-pictures-"));
  let browser: BrowserContext | undefined;
  try {
    const d = await digests(emu, client, clock);
    const w = await weekly(emu, client, clock);
    const batch = await batchedDigest({ now: BATCH_AT });
    const answer = await askAnswer(emu, client, clock);

    browser = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      viewport: { width: WIDTH, height: 400 },
      deviceScaleFactor: 2,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    // Everything the pages need is inline: no request leaves the machine.
    await browser.route("**/*", (route) => route.abort());

    const files = {
      digest: join(OUT, "digest.png"),
      updated: join(OUT, "digest-updated.png"),
      compact: join(OUT, "digest-compact.png"),
      batch: join(OUT, "digest-batch.png"),
      weekly: join(OUT, "weekly-summary.png"),
      chart: join(OUT, "weekly-chart.png"),
      ask: join(OUT, "ask-answer.png"),
    };
    await shoot(browser, { blocks: d.created.blocks, postedAt: DIGEST_AT }, files.digest);
    await shoot(browser, { blocks: d.updated.blocks, postedAt: DIGEST_AT, edited: true }, files.updated);
    await shoot(browser, { blocks: d.compact.blocks, postedAt: UPDATED_AT }, files.compact);
    await shoot(browser, { blocks: batch.blocks, postedAt: BATCH_AT }, files.batch);
    await shoot(browser, { blocks: w.message.blocks, postedAt: WEEKLY_AT }, files.weekly);
    writeFileSync(files.chart, w.chart);
    await shoot(
      browser,
      {
        blocks: answer.blocks,
        postedAt: ASK_AT,
        asked: { who: "Maya", text: ASK_QUESTION },
        where: `Insight Relay<span>Assistant · ${ASK_QUESTION}</span>`,
      },
      files.ask,
    );
    console.log("Pictures written:");
    Object.values(files).forEach(report);
  } finally {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
    await client.close();
    await emu.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
