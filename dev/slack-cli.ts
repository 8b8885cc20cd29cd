/*
 * `npm run slack -- "/insight list"`: sends one signed Slack request to a demo kept running
 * (`npm run demo -- --keep`) and prints what the app did in reply, as the stand-in Slack saw it
 * (the command's replies, posts, edits, modals, Home). `--press <action_id>` presses a button of a
 * card instead. Reads the session the demo wrote (data/demo/session.json; `--session <file>`).
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { request } from "undici";
import { readSession, sessionFile, type DemoSession } from "./demo/session.js";
import { sendInteraction, sendSlashCommand } from "./demo/sign.js";

const USAGE = [
  'usage: npm run slack -- "/insight <subcommand and options>"',
  "       npm run slack -- --press <action_id> [--channel <C…>] [--ts <card ts>] [--user <U…>]",
  "                        (presses that button of the newest card in the demo's channel, or of the card at --ts)",
  "  --session <file>  the kept demo's session (default data/demo/session.json)",
  "  --wait <seconds>  how long to print what the app does in reply (default 4)",
].join("\n");

interface Args {
  command?: string;
  press?: { actionId: string; channel: string | undefined; ts: string | undefined };
  user?: string;
  session: string;
  waitMs: number;
}

/** The arguments, or the first thing wrong with them. */
export function parseSlackArgs(argv: readonly string[], defaultSession: string): Args | { error: string } {
  const out: Args = { session: defaultSession, waitMs: 4_000 };
  const press: Partial<NonNullable<Args["press"]>> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === "--press") press.actionId = value();
      else if (a === "--channel") press.channel = value();
      else if (a === "--ts") press.ts = value();
      else if (a === "--user") out.user = value();
      else if (a === "--session") out.session = resolve(value());
      else if (a === "--wait") {
        const s = Number(value());
        if (!Number.isFinite(s) || s < 0 || s > 120)
          return { error: "--wait is a number of seconds up to 120" };
        out.waitMs = s * 1000;
      } else if (a.startsWith("--")) return { error: `unknown option ${a}` };
      else out.command = [out.command, a].filter(Boolean).join(" ");
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }
  if (press.actionId) {
    if (out.command) return { error: "either a command or --press, not both" };
    out.press = { actionId: press.actionId, channel: press.channel, ts: press.ts };
    return out;
  }
  const cmd = out.command?.trim() ?? "";
  if (!cmd.startsWith("/insight"))
    return { error: 'say the command as typed in Slack, e.g. "/insight list"' };
  out.command = cmd;
  return out;
}

async function transcriptAfter(
  s: DemoSession,
  after: number,
): Promise<{ lines: { seq: number; line: string }[]; last: number }> {
  const res = await request(`${s.slackUrl}/_standin/transcript?after=${after}`);
  return (await res.body.json()) as { lines: { seq: number; line: string }[]; last: number };
}

interface CardMessage {
  ts?: string;
  metadata?: { event_type?: string };
  blocks?: { type?: string; block_id?: string; elements?: { action_id?: string; value?: string }[] }[];
}

/** A card of the app in a channel (the newest, or the one at `ts`), from the stand-in's history. */
async function cardOf(
  s: DemoSession,
  channel: string,
  ts: string | undefined,
): Promise<CardMessage | undefined> {
  const res = await request(`${s.slackUrl}/api/conversations.history`, {
    method: "POST",
    // The stand-in takes any bot token.
    headers: { "content-type": "application/json", authorization: "Bearer xoxb-slack-cli" },
    body: JSON.stringify({ channel, limit: 200, include_all_metadata: true }),
  });
  const body = (await res.body.json()) as { messages?: CardMessage[] };
  return (body.messages ?? []).find(
    (m) => m.metadata?.event_type === "insight_thread_digest" && (ts === undefined || m.ts === ts),
  );
}

/** A press of one of a card's buttons, shaped as Slack's block_actions payload (its block id and value as shown). */
function pressPayload(
  s: DemoSession,
  o: { actionId: string; channel: string; card: CardMessage; user: string; responseUrl: string },
): object | string {
  const block = o.card.blocks?.find((b) => b.elements?.some((e) => e.action_id === o.actionId));
  const element = block?.elements?.find((e) => e.action_id === o.actionId);
  if (!block || !element) return `the card has no ${o.actionId} button`;
  return {
    type: "block_actions",
    team: { id: s.teamId, domain: "insight-relay-demo" },
    user: { id: o.user, username: "community.manager", team_id: s.teamId },
    api_app_id: "A0DEMO",
    container: { type: "message", message_ts: o.card.ts, channel_id: o.channel, is_ephemeral: false },
    trigger_id: `7012345678901.1234567890123.${randomBytes(8).toString("hex")}`,
    channel: { id: o.channel, name: "community-insights" },
    message: { type: "message", ts: o.card.ts, text: "", blocks: o.card.blocks ?? [] },
    response_url: o.responseUrl,
    actions: [
      {
        type: "button",
        action_id: o.actionId,
        block_id: block.block_id ?? "",
        value: element.value ?? "",
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const args = parseSlackArgs(argv, sessionFile(resolve(process.env.DEMO_OUT_DIR?.trim() || "data/demo")));
  if ("error" in args) {
    console.error(`slack: ${args.error}\n${USAGE}`);
    return 2;
  }
  const s = readSession(args.session);
  if (typeof s === "string") {
    console.error(`slack: ${s}`);
    return 1;
  }
  const { last } = await transcriptAfter(s, Number.MAX_SAFE_INTEGER);
  const responseUrl = `${s.slackUrl}/response/CLI${randomBytes(4).toString("hex")}`;
  const user = args.user ?? s.userId;
  let status: number;
  if (args.press) {
    const channel = args.press.channel ?? s.channelId;
    const card = await cardOf(s, channel, args.press.ts);
    if (!card) {
      console.error(`slack: no card of the app in ${channel}${args.press.ts ? ` at ${args.press.ts}` : ""}`);
      return 1;
    }
    const payload = pressPayload(s, { actionId: args.press.actionId, channel, card, user, responseUrl });
    if (typeof payload === "string") {
      console.error(`slack: ${payload}`);
      return 1;
    }
    status = (await sendInteraction(s.eventsUrl, s.signingSecret, payload)).status;
  } else {
    const text = (args.command ?? "").replace(/^\/insight\s*/, "");
    status = await sendSlashCommand(s.eventsUrl, s.signingSecret, {
      teamId: s.teamId,
      text,
      channelId: s.channelId,
      userId: user,
      responseUrl,
    });
  }
  console.log(`→ ${args.press ? `pressed ${args.press.actionId}` : args.command}  (HTTP ${status})`);
  // What the app does in reply, as it happens, for the wait.
  let seen = last;
  const until = Date.now() + args.waitMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    const t = await transcriptAfter(s, seen);
    for (const l of t.lines) console.log(l.line);
    seen = t.last;
  }
  return status === 200 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main()
    .then((code) => process.exit(code))
    .catch((err: unknown) => {
      console.error(`slack: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
