import { checkConfig } from "./config-check.js";
import { checkInsight } from "./insight-check.js";
import { checkRedis } from "./redis-check.js";
import { formatResult, type CheckResult } from "./result.js";
import { checkSlack } from "./slack-check.js";
import { checkEncryptionKey, checkOAuthClient, checkPublicUrl, oauthUrls } from "./oauth-check.js";
import { parsePublicBase, webhookUrl } from "./webhook-url.js";

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  argv: string[];
  /** The .env file that was read, if any (for the report). */
  envFile: string | undefined;
  out: (line: string) => void;
  timeoutMs?: number;
}

export const DOCTOR_USAGE = "usage: npm run doctor [-- --public-url https://relay.example.com]";

function parseArgs(argv: string[]): { publicUrl?: string } | string {
  const out: { publicUrl?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    const inline = /^--public-url=(.*)$/.exec(a);
    if (a === "--public-url" || inline) {
      const v = inline ? inline[1] : argv[++i];
      if (!v) return "--public-url needs a URL";
      out.publicUrl = v;
    } else if (a === "--help" || a === "-h") {
      return DOCTOR_USAGE;
    } else {
      return `unknown argument ${a}`;
    }
  }
  return out;
}

/** Runs every check, prints one line per result and the webhook URL; returns the exit code. */
export async function runDoctor(o: DoctorOptions): Promise<number> {
  const { out } = o;
  const args = parseArgs(o.argv);
  if (typeof args === "string") {
    out(args === DOCTOR_USAGE ? args : `doctor: ${args}\n${DOCTOR_USAGE}`);
    return args === DOCTOR_USAGE ? 0 : 2;
  }
  let publicBase: string | undefined;
  if (args.publicUrl !== undefined) {
    publicBase = parsePublicBase(args.publicUrl);
    if (!publicBase) {
      out(`doctor: --public-url must be an http(s) URL such as https://relay.example.com\n${DOCTOR_USAGE}`);
      return 2;
    }
  }

  out("Insight Relay doctor");
  const cfg = checkConfig(o.env, o.envFile);
  const results: CheckResult[] = [...cfg.results];
  const config = cfg.config;
  const needs = (...vars: string[]) => vars.filter((v) => cfg.bad.has(v));
  const skip = (name: string, vars: string[]): CheckResult[] => [
    {
      status: "skip",
      name,
      text: `not checked until ${vars.join(" and ")} ${vars.length > 1 ? "are" : "is"} fixed`,
    },
  ];
  if (config) {
    const t = o.timeoutMs;
    const redisBad = needs("REDIS_URL", "REDIS_PREFIX");
    const insightBad = needs("INSIGHT_BASE_URL", "INSIGHT_API_KEY", "INSIGHT_API_VERSION");
    const slackBad = needs("SLACK_BOT_TOKEN", "SLACK_API_URL");
    const mw = config.multiWorkspace;
    const checks = await Promise.all([
      redisBad.length
        ? skip("Redis", redisBad)
        : checkRedis(config.redis.url, config.redis.prefix, t, config.redis.clusterNodes),
      ...(mw
        ? // Many workspaces: each brings its own bot token and API key; the deployment's OAuth settings are what to check.
          [
            checkOAuthClient(config, t).then((r) => [r]),
            [checkEncryptionKey(mw), checkPublicUrl(config.publicUrl)],
            [
              {
                status: "skip",
                name: "Insight API key",
                text: "each workspace connects its own key from the app's Home tab (Connect); /admin/workspaces lists which are connected",
              } satisfies CheckResult,
            ],
          ]
        : [
            insightBad.length ? skip("Insight API key", insightBad) : checkInsight(config, t),
            slackBad.length ? skip("Slack token", slackBad) : checkSlack(config, t),
          ]),
    ]);
    results.push(...checks.flat());
  }
  for (const r of results) out(formatResult(r));

  if (config?.multiWorkspace) {
    const base = publicBase ?? config.publicUrl ?? "https://<your-host>";
    const { install, redirect } = oauthUrls(base);
    out("");
    out("Many workspaces (Add to Slack):");
    out(`  Install link to share: ${install}`);
    out(`  Redirect URL (Slack app > OAuth & Permissions): ${redirect}`);
    out(`  Slack app (slash command, interactivity, events) Request URL: ${base}/slack/events`);
    out("  Each workspace's webhook URL is shown to its admins in the app's Home tab after Connect.");
  } else if (config && !cfg.bad.has("WEBHOOK_SECRET")) {
    out("");
    out(
      "Webhook URL to paste into the Insight Service's dashboard (it holds WEBHOOK_SECRET: keep it private):",
    );
    // --public-url wins over PUBLIC_URL: the operator is trying a different address.
    publicBase ??= config.publicUrl;
    out(`  ${webhookUrl(config.webhookSecret, publicBase)}`);
    if (!publicBase) {
      out(
        `  Replace https://<your-host> with the public HTTPS address that reaches this app's port (PORT=${config.port}), set PUBLIC_URL, or run: npm run doctor -- --public-url https://relay.example.com`,
      );
    }
    out(
      `  Slack app (slash command, interactivity, events) Request URL: ${publicBase ?? "https://<your-host>"}/slack/events`,
    );
  }

  const failed = results.filter((r) => r.status === "fail").length;
  const warned = results.filter((r) => r.status === "warn").length;
  out("");
  if (failed)
    out(
      `${failed} check${failed === 1 ? "" : "s"} failed; fix the lines marked FAIL and run npm run doctor again.`,
    );
  else out(`All checks passed${warned ? ` (${warned} warning${warned === 1 ? "" : "s"})` : ""}.`);
  return failed ? 1 : 0;
}
