import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What is needed to talk to a demo kept running (`npm run demo -- --keep`): written next to its
 * other outputs and read by `npm run slack`. Secrets here are the demo's own, made up at start.
 */
export interface DemoSession {
  /** The app's Slack endpoint (commands, interactivity, events). */
  eventsUrl: string;
  signingSecret: string;
  /** The stand-in Slack: its Web API, its response URLs and its transcript. */
  slackUrl: string;
  teamId: string;
  channelId: string;
  userId: string;
  /** Where the Insight Service (the emulator) sends its webhooks. */
  webhookUrl: string;
  emulator: { baseUrl: string; apiKey: string };
  metricsUrl: string;
  admin?: { url: string; user: string; password: string };
}

export const sessionFile = (outDir: string) => join(outDir, "session.json");

export function writeSession(outDir: string, s: DemoSession): string {
  const file = sessionFile(outDir);
  writeFileSync(file, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** The session a kept demo wrote; a one-line reason when there is none. */
export function readSession(file: string): DemoSession | string {
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch {
    return `no demo session at ${file}: start one with \`npm run demo -- --keep\` (in another terminal)`;
  }
  try {
    const s = JSON.parse(raw) as Partial<DemoSession>;
    if (
      typeof s.eventsUrl !== "string" ||
      typeof s.signingSecret !== "string" ||
      typeof s.slackUrl !== "string"
    )
      return `${file} is not a demo session`;
    return s as DemoSession;
  } catch {
    return `${file} is not a demo session`;
  }
}

/** The lines `--keep` prints: everything needed to talk to the kept demo. */
export function sessionLines(s: DemoSession, file: string): string[] {
  return [
    `send a command  npm run slack -- "/insight list"     (or "/insight help", "/insight threads 7d")`,
    `press a button  npm run slack -- --press digest.mark_handled     (on the newest card; --ts <ts> for another)`,
    `Slack endpoint  ${s.eventsUrl}  (signing secret ${s.signingSecret}; team ${s.teamId}, channel ${s.channelId}, user ${s.userId})`,
    `stand-in Slack  ${s.slackUrl}  (what the app sent: ${s.slackUrl}/_standin/transcript)`,
    `webhook URL     ${s.webhookUrl}`,
    `Insight API     ${s.emulator.baseUrl}/api/v1/community  (header X-API-Key: ${s.emulator.apiKey})`,
    `metrics         ${s.metricsUrl}`,
    ...(s.admin
      ? [`admin page      ${s.admin.url}  (user ${s.admin.user}, password ${s.admin.password})`]
      : []),
    `all of it       ${file}`,
  ];
}
