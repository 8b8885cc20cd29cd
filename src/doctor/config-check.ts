import { loadConfig, type Config } from "../config.js";
import { DEFAULT_SLACK_API_URL } from "../slack/client.js";
import type { CheckResult } from "./result.js";

/** What to do about each variable when it is missing or malformed. */
const ADVICE: Record<string, string> = {
  SLACK_BOT_TOKEN: "copy the Bot User OAuth Token (xoxb-...) from your Slack app's OAuth & Permissions page",
  SLACK_SIGNING_SECRET: "copy the Signing Secret from your Slack app's Basic Information page",
  SLACK_API_URL: "remove it to use https://slack.com/api/",
  INSIGHT_BASE_URL: "set it to the Insight Service's base URL, the part before /api/v1",
  INSIGHT_API_KEY: "copy an API key from the Insight Service's dashboard",
  INSIGHT_API_VERSION: "remove it to use v1",
  INSIGHT_SEARCH_PARAM: "remove it to use query",
  WEBHOOK_SECRET: "make one with: openssl rand -hex 24",
  REDIS_URL: "set it like redis://127.0.0.1:6379, or remove it to use that",
  REDIS_PREFIX: "remove it to use insight",
  PORT: "set a port number, or remove it to use 3000",
  ROLE: "set all, web, worker or scheduler, or remove it to use all",
  SPOOL_DIR: "remove it to use ./data/spool",
  ADMIN_USER_IDS: "list Slack user ids like U012AB3CD,U045EF6GH, or remove it",
  OPS_CHANNEL_ID: "copy the channel id (C...) from the channel's details in Slack, or remove it",
  ADMIN_PASSWORD: "use at least 8 characters, or remove it to turn the admin page off",
  RECONCILE_INTERVAL: "set a number of seconds, or remove it to use 600",
  WEEKLY_DEFAULT_CRON: 'use five cron fields such as "0 9 * * 1", or remove it',
  DEFAULT_TIMEZONE: "use an IANA zone such as Europe/Paris, or remove it to use UTC",
  LOG_LEVEL: "use fatal, error, warn, info, debug or trace, or remove it to use info",
  PUBLIC_URL: "set the app's public https address, like https://relay.example.com",
  SLACK_CLIENT_ID: "copy the Client ID from your Slack app's Basic Information page",
  SLACK_CLIENT_SECRET: "copy the Client Secret from your Slack app's Basic Information page",
  SLACK_STATE_SECRET: "make one with: openssl rand -hex 24",
  ENCRYPTION_KEY: "make one with: openssl rand -hex 32 (32 bytes, hex or base64; NEW,OLD while rotating)",
};

/**
 * Valid stand-ins for required variables that are missing or malformed, so that the checks
 * which do not need them still run. Optional variables are dropped (their default applies).
 */
const STAND_INS: Record<string, string> = {
  SLACK_BOT_TOKEN: "xoxb-doctor-stand-in",
  SLACK_SIGNING_SECRET: "doctor-stand-in",
  INSIGHT_BASE_URL: "http://stand-in.invalid",
  INSIGHT_API_KEY: "doctor-stand-in",
  WEBHOOK_SECRET: "doctor-stand-in-secret",
};

export interface DoctorConfig {
  /** The config to check with (stand-ins where variables were bad); undefined if none could be made. */
  config: Config | undefined;
  /** Variables that are missing or malformed. */
  bad: Set<string>;
  results: CheckResult[];
}

export function checkConfig(env: NodeJS.ProcessEnv, envFile: string | undefined): DoctorConfig {
  const where = envFile ? `${envFile} and the environment` : "the environment (no .env file found)";
  const first = loadConfig(env);
  if (first.ok) {
    const results: CheckResult[] = [
      { status: "ok", name: "configuration", text: `every variable read from ${where} is valid` },
    ];
    if (first.config.slack.apiUrl !== DEFAULT_SLACK_API_URL) {
      results.push({
        status: "warn",
        name: "configuration",
        text: `SLACK_API_URL is ${first.config.slack.apiUrl}, not Slack itself; remove it unless this is a test`,
      });
    }
    return { config: first.config, bad: new Set(), results };
  }
  const bad = new Set<string>();
  const results: CheckResult[] = first.errors.map((line) => {
    const name = line.split(" ")[0] ?? "environment";
    bad.add(name);
    const advice = ADVICE[name] ?? "see .env.example";
    return { status: "fail", name: "configuration", text: `${line}; ${advice}` };
  });
  const patched: NodeJS.ProcessEnv = { ...env };
  for (const name of bad) {
    const standIn = STAND_INS[name];
    if (standIn === undefined) delete patched[name];
    else patched[name] = standIn;
  }
  const second = loadConfig(patched);
  return { config: second.ok ? second.config : undefined, bad, results };
}
