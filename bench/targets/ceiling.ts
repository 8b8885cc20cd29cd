// Ceilings for bench:webhooks and bench:pipeline: servers that read the body, answer 200 and do
// nothing else; `express-redis`, the Express route making one Redis write before its 200 (the
// least any acknowledgement durable in Redis costs), and `node-http-redis`, the same on a bare
// node:http server; and `express-bullmq`, the least a durable
// acknowledgement costs with the app's parts: the route adds the delivery to a BullMQ queue (no
// worker) before its 200.
import { createServer } from "node:http";
import express from "express";

const kind = process.argv[2];
const port = Number(process.argv[3] ?? 0);
const prefix = process.argv[4] ?? "bench-ceiling";
/** The Redis of the two durable ceilings; loaded only there, so the bare ceilings' memory stays theirs. */
const connectRedis = async () => {
  const { Redis } = await import("ioredis");
  return new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
};

if (kind === "node-http") {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  server.listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
} else if (kind === "express") {
  const app = express();
  app.post(
    "/webhooks/insight/:secret",
    express.raw({ type: () => true, limit: 1024 * 1024 }),
    (_req, res) => {
      res.status(200).json({ ok: true });
    },
  );
  app.listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
} else if (kind === "express-redis") {
  // The least any acknowledgement durable in Redis costs: one command (SET NX with a TTL, as a
  // de-duplication marker would be) before the 200.
  const redis = await connectRedis();
  let seq = 0;
  const app = express();
  app.post("/webhooks/insight/:secret", express.raw({ type: () => true, limit: 1024 * 1024 }), (req, res) => {
    const body = req.body instanceof Buffer ? req.body : "";
    redis
      .set(`${prefix}:d-${process.pid}-${seq++}`, body, "EX", 60, "NX")
      .then(() => res.status(200).json({ ok: true }))
      .catch(() => res.status(503).end());
  });
  app.listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
} else if (kind === "node-http-redis") {
  // The same write from a bare node:http route: the least a durable acknowledgement costs on
  // the server the app's webhook route runs on (it answers before Express).
  const redis = await connectRedis();
  let seq = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      redis
        .set(`${prefix}:d-${process.pid}-${seq++}`, Buffer.concat(chunks), "EX", 60, "NX")
        .then(() => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end('{"ok":true}');
        })
        .catch(() => res.writeHead(503).end());
    });
  });
  server.listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
} else if (kind === "express-bullmq") {
  // Loaded here only: the bare ceilings' memory stays theirs.
  const { Queue } = await import("bullmq");
  const queue = new Queue("ceiling-deliveries", { connection: await connectRedis(), prefix });
  let seq = 0;
  const app = express();
  app.post("/webhooks/insight/:secret", express.raw({ type: () => true, limit: 1024 * 1024 }), (req, res) => {
    const body: unknown = req.body instanceof Buffer ? req.body.toString("utf8") : "";
    queue
      .add("delivery", { body }, { jobId: `d-${process.pid}-${seq++}`, removeOnComplete: true })
      .then(() => res.status(200).json({ ok: true }))
      .catch(() => res.status(503).end());
  });
  app.listen(port, "127.0.0.1", () => console.log(`ready port=${port}`));
} else {
  console.error(
    "usage: ceiling.ts node-http|express|express-redis|node-http-redis|express-bullmq PORT [PREFIX]",
  );
  process.exit(2);
}
