/**
 * Runs the Slack stand-in alone and prints what the app posts:
 *   npx tsx dev/slack-standin/cli.ts [port]      (or PORT=4000 npx tsx dev/slack-standin/cli.ts)
 * Point the app at it with SLACK_API_URL=<printed url> and any xoxb- token.
 */
import { startSlackStandIn } from "./server.js";

function portFrom(argv: string[], env: NodeJS.ProcessEnv): number {
  const raw = argv[2] ?? env.PORT ?? "0";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Slack stand-in: "${raw}" is not a port number`);
    process.exit(2);
  }
  return port;
}

const standIn = await startSlackStandIn({ port: portFrom(process.argv, process.env), print: true });
console.log(`Slack stand-in listening. Set SLACK_API_URL=${standIn.url} (any xoxb- token is accepted)`);

const stop = () => {
  void standIn.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
