// temporary probe (not committed): one bundled app, left running; prints its pid
import { appScript, benchAppEnv, spawnReady, startFlags } from "./processes.js";
import { startEmulator } from "../dev/emulator/index.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
const emulator = await startEmulator();
const slack = await startSlackStandIn();
const extra = (process.env.EXTRA ?? "").split(" ").filter(Boolean);
const child = await spawnReady([await appScript(process.env.DIR ?? ".")], {
  env: benchAppEnv({ slackUrl: slack.url, insightUrl: emulator.baseUrl, insightKey: emulator.apiKey,
    webhookSecret: "bench-webhook-secret-0123456789", redisUrl: "redis://127.0.0.1:6379",
    prefix: "probe" + process.pid, port: 39000 + (process.pid % 1000), spoolDir: "/tmp/probe", tuning: {} }),
  tsx: false, cwd: process.env.DIR ?? ".", nodeFlags: [...startFlags(process.env.DIR ?? "."), ...extra],
});
console.log("pid", child.pid);
await new Promise(() => {});
