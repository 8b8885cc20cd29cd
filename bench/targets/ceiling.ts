// Ceilings for bench:webhooks: servers that read the body, answer 200 and do nothing else.
import { createServer } from "node:http";
import express from "express";

const kind = process.argv[2];
const port = Number(process.argv[3] ?? 0);

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
} else {
  console.error("usage: ceiling.ts node-http|express PORT");
  process.exit(2);
}
