// The floor of bench:pipeline's burst: the least a digest costs with the app's own parts and
// nothing of the app. node:http takes the webhook, BullMQ holds it (one job, or two like the
// app: deliveries, then slack-out; or none: one LPUSH records the delivery before the answer and
// the card is posted from the request), undici posts one JSON card to the Slack stand-in, and one
// SET records its ts. No signature check, de-duplication, listing, filters, rendering, lock,
// logging or metrics: what the app spends above this row is what its features cost.
//
//   node --import tsx bench/targets/floor.ts PORT REDIS_URL SLACK_API_URL PREFIX 0|1|2 CHANNEL
import { createServer } from "node:http";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { request } from "undici";

const [portArg, redisUrl = "", slackUrl = "", prefix = "bench-floor", jobsArg = "2", channel = "C0FLOOR"] =
  process.argv.slice(2);
const port = Number(portArg ?? 0);
const twoJobs = jobsArg === "2";
// No queue at all: what node:http, one Redis write and undici cost without BullMQ.
const noJob = jobsArg === "0";

interface Card {
  channel: string;
  threadId: string;
  title: string;
  summary: string;
}
interface Delivery {
  payload?: { threadId?: string; title?: string; summary?: string };
}

const connection = () => new Redis(redisUrl, { maxRetriesPerRequest: null });
// As the app does: queues on a connection of their own, state writes auto-pipelined.
const queueRedis = connection();
const state = new Redis(redisUrl, { enableAutoPipelining: true });
// The app's deliveries queue keeps as many finished jobs (jobs/queues.ts).
const keep = {
  removeOnComplete: { age: 3_600, count: 5_000 },
  removeOnFail: { age: 7 * 86_400, count: 5_000 },
};
const deliveries = new Queue<Delivery>("floor-deliveries", { connection: queueRedis, prefix });
const slackOut = new Queue<Card>("floor-slack", { connection: queueRedis, prefix });

async function post(card: Card): Promise<void> {
  const res = await request(new URL("chat.postMessage", slackUrl), {
    method: "POST",
    headers: { authorization: "Bearer xoxb-bench-floor", "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({
      channel: card.channel,
      text: card.title,
      blocks: [
        { type: "header", text: { type: "plain_text", text: card.title } },
        { type: "section", text: { type: "mrkdwn", text: card.summary } },
      ],
    }),
  });
  const body = (await res.body.json()) as { ts?: string };
  await state.set(`${prefix}:ref:${card.channel}:${card.threadId}`, body.ts ?? "");
}

const cardOf = (d: Delivery): Card => ({
  channel,
  threadId: d.payload?.threadId ?? "",
  title: d.payload?.title ?? "thread",
  summary: d.payload?.summary ?? "",
});

new Worker<Delivery>(
  "floor-deliveries",
  async (job) => {
    const card = cardOf(job.data);
    if (twoJobs) await slackOut.add("card", card, { jobId: `card-${card.threadId}`, ...keep });
    else await post(card);
  },
  { connection: connection(), prefix, concurrency: 10 },
);
if (twoJobs) {
  new Worker<Card>("floor-slack", (job) => post(job.data), {
    connection: connection(),
    prefix,
    concurrency: 8,
  });
}

let seq = 0;
createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    const delivery = JSON.parse(raw) as Delivery;
    const recorded = noJob
      ? state.lpush(`${prefix}:floor-intake`, raw)
      : deliveries.add("delivery", delivery, { jobId: `d-${process.pid}-${seq++}`, ...keep });
    recorded
      .then(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
        if (noJob) return post(cardOf(delivery));
      })
      .catch(() => {
        if (res.headersSent) return; // the card's post failed after the answer
        res.writeHead(503);
        res.end();
      });
  });
}).listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
// bench:pipeline --profile stops it with SIGINT: exit normally so --cpu-prof writes its profile.
process.on("SIGINT", () => process.exit(0));
