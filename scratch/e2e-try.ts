import { startEmulator, SEED } from "../dev/emulator/index.js";
import { InsightClient } from "../src/insight/client.js";
import { CommunityReader } from "../src/ask/community-reader.js";
import { askQuestion } from "../src/ask/ask-question.js";
import { silentLogger } from "../src/log.js";
import { flattenBlocks } from "../dev/slack-standin/flatten-blocks.js";
const now = Date.parse("2025-11-26T15:00:00Z");
const emu = await startEmulator({ now: () => new Date(now) });
const client = new InsightClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
const subs = [{ channelId: "C1", groupId: SEED.groups.support, groupName: "Lumen DB Support" }, { channelId: "C2", groupId: SEED.groups.rides, groupName: "Saturday Rides" }];
const deps: any = {
  insight: client, reader: new CommunityReader(client, { now: () => now }),
  subscriptions: { forChannel: async (c: string) => subs.filter((s) => s.channelId === c), all: async () => subs },
  conversations: { memory: async () => undefined, remember: async () => undefined },
  timeZones: { of: async () => "Europe/Berlin" }, reportInsightError: async () => undefined, logger: silentLogger, now: () => now,
};
for (const q of process.argv.slice(2)) {
  const t0 = performance.now();
  const o = await askQuestion(deps, { text: q, userId: "U1", channelId: "C1" });
  console.log(`\n### ${q}  (${Math.round(performance.now() - t0)} ms)\n` + flattenBlocks(o.reply.blocks, o.reply.text));
}
await client.close(); await emu.close();
