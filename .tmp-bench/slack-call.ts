import { request, Agent } from "undici";
import { WebClient } from "@slack/web-api";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
const s = await startSlackStandIn();
const N = 2000;
const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*Title* summary ".repeat(20) } }, { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Messages" }, action_id: "digest.view_messages", value: "x" }] }];
const wc = new WebClient("xoxb-test", { slackApiUrl: s.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let round = 0; round < 2; round++) {
  let c0 = cpu(), t0 = performance.now();
  for (let i = 0; i < N; i++) await wc.chat.postMessage({ channel: "C1", text: "hello", blocks, unfurl_links: false });
  console.log("web-api", ((cpu() - c0) / N).toFixed(3), "ms cpu/call", ((performance.now() - t0) / N).toFixed(3), "ms wall");
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  c0 = cpu(); t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const r = await request(new URL("chat.postMessage", s.url), { method: "POST", dispatcher: agent, headers: { authorization: "Bearer xoxb-test", "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ channel: "C1", text: "hello", blocks, unfurl_links: false }) });
    const j = (await r.body.json()) as { ok: boolean };
    if (!j.ok) throw new Error("not ok");
  }
  console.log("undici json", ((cpu() - c0) / N).toFixed(3), "ms cpu/call", ((performance.now() - t0) / N).toFixed(3), "ms wall");
}
await s.close();
