// bench:slack — CPU and wall time of one chat.postMessage with a card's blocks, through Slack's
// WebClient against as one JSON POST over undici (src/slack/direct-call.ts), both against the
// stand-in Slack in this process (so the CPU includes the stand-in's share, alike for both).
//
//   npm run bench:slack [-- --calls 2000]
import { parseArgs } from "node:util";
import { WebClient } from "@slack/web-api";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { callSlackDirect } from "../src/slack/direct-call.js";

const { values: args } = parseArgs({ options: { calls: { type: "string", default: "2000" } } });
const N = Number(args.calls);
const TOKEN = "xoxb-bench-token";
const blocks = [
  { type: "section", text: { type: "mrkdwn", text: "*Refund delays* members compare notes. ".repeat(12) } },
  {
    type: "actions",
    elements: [
      {
        type: "button",
        text: { type: "plain_text", text: "Messages" },
        action_id: "digest.view_messages",
        value: "x",
      },
    ],
  },
];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const slack = await startSlackStandIn();
const web = new WebClient(TOKEN, {
  slackApiUrl: slack.url,
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
});
const args0 = { channel: "C0BENCH", text: "Refund delays", blocks, unfurl_links: false };
const ways: [string, () => Promise<unknown>][] = [
  ["WebClient (form-encoded)", () => web.chat.postMessage(args0)],
  [
    "JSON over undici",
    () =>
      callSlackDirect({
        apiUrl: slack.url,
        method: "chat.postMessage",
        token: TOKEN,
        args: args0,
        timeoutMs: 10_000,
      }),
  ],
];
const rows: string[] = [];
// Two rounds: the first warms both paths up; the second is reported.
for (let round = 0; round < 2; round++) {
  for (const [name, call] of ways) {
    const c0 = cpuMs();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await call();
    if (round === 1) {
      rows.push(
        `| ${name} | ${N} | ${((cpuMs() - c0) / N).toFixed(3)} | ${((performance.now() - t0) / N).toFixed(3)} |`,
      );
    }
  }
}
await slack.close();
console.log(
  `bench:slack — chat.postMessage with a card's blocks, stand-in Slack in this process, same run\n`,
);
console.log("| way | calls | CPU ms/call | wall ms/call |\n| --- | --- | --- | --- |");
for (const r of rows) console.log(r);
