import { CronExpressionParser } from "cron-parser";
import * as z from "zod";

/** The roles one process can run; `all` runs every role. */
export const ROLES = ["all", "web", "worker", "scheduler"] as const;
export type Role = (typeof ROLES)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// Empty strings in .env files mean "unset", as operators expect from `FOO=`.
const blankAsUnset = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUnset, schema.optional());
const present = z.string({ error: (iss) => (iss.input === undefined ? "is missing" : "must be text") });
const req = <T extends z.ZodType<string, string>>(schema: T) =>
  z.preprocess(blankAsUnset, present.pipe(schema));

const httpUrl = z
  .string()
  .trim()
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    },
    { message: "must be an http(s) URL" },
  );

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, { message: "must be a whole number" })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { message: `must be between ${min} and ${max}` });

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function isValidCron(expr: string): boolean {
  // Five fields only: a seconds field would let a typo post every second.
  if (expr.trim().split(/\s+/).length !== 5) return false;
  try {
    CronExpressionParser.parse(expr);
    return true;
  } catch {
    return false;
  }
}

/** A 32-byte key written as 64 hex digits or as base64; undefined when it is neither. */
export function decodeKey(text: string): Buffer | undefined {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : Buffer.from(t, "base64");
  return key.length === 32 ? key : undefined;
}

const envSchema = z.object({
  // Required in single-workspace mode only; `requireByMode` says so after parsing.
  SLACK_BOT_TOKEN: opt(
    z
      .string()
      .trim()
      .regex(/^xoxb-\S+$/, { message: "must be a bot token (xoxb-...)" }),
  ),
  SLACK_SIGNING_SECRET: req(z.string().trim().min(1)),
  SLACK_API_URL: opt(httpUrl),
  INSIGHT_BASE_URL: opt(httpUrl),
  INSIGHT_API_KEY: opt(z.string().trim().min(1)),
  INSIGHT_API_VERSION: opt(
    z
      .string()
      .trim()
      .regex(/^v\d+$/, { message: "must look like v1" }),
  ),
  INSIGHT_SEARCH_PARAM: opt(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]+$/, { message: "must be a query parameter name" }),
  ),
  WEBHOOK_SECRET: req(
    z
      .string()
      .trim()
      .min(16, { message: "must be at least 16 characters" })
      .regex(/^[A-Za-z0-9_-]+$/, {
        message: "may hold only letters, digits, '-' and '_' (it is part of a URL)",
      }),
  ),
  REDIS_URL: opt(
    z
      .string()
      .trim()
      .regex(/^rediss?:\/\//, { message: "must start with redis:// or rediss://" }),
  ),
  REDIS_PREFIX: opt(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]+$/, { message: "may hold only letters, digits, '.', '-' and '_'" }),
  ),
  PORT: opt(int(0, 65535)),
  ROLE: opt(z.enum(ROLES, { message: `must be one of ${ROLES.join(", ")}` })),
  SPOOL_DIR: opt(z.string().trim().min(1)),
  ADMIN_USER_IDS: opt(
    z
      .string()
      .trim()
      .regex(/^[A-Z0-9]+(\s*,\s*[A-Z0-9]+)*$/, {
        message: "must be comma-separated Slack user ids (U123,...)",
      }),
  ),
  OPS_CHANNEL_ID: opt(
    z
      .string()
      .trim()
      .regex(/^[CGD][A-Z0-9]+$/, { message: "must be a Slack channel id (C...)" }),
  ),
  ADMIN_PASSWORD: opt(z.string().min(8, { message: "must be at least 8 characters" })),
  RECONCILE_INTERVAL: opt(int(1, 86_400)),
  WEEKLY_DEFAULT_CRON: opt(
    z.string().trim().refine(isValidCron, { message: "must be a five-field cron expression" }),
  ),
  DEFAULT_TIMEZONE: opt(
    z.string().trim().refine(isValidTimezone, { message: "must be an IANA time zone such as Europe/Paris" }),
  ),
  LOG_LEVEL: opt(z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(", ")}` })),
  PUBLIC_URL: opt(httpUrl),
  REDIS_CLUSTER_NODES: opt(
    z
      .string()
      .trim()
      .regex(/^[^\s,:]+:\d+(\s*,\s*[^\s,:]+:\d+)*$/, { message: "must be comma-separated host:port seeds" }),
  ),
  SLACK_CLIENT_ID: opt(z.string().trim().min(1)),
  SLACK_CLIENT_SECRET: opt(z.string().trim().min(1)),
  SLACK_STATE_SECRET: opt(z.string().trim().min(16, { message: "must be at least 16 characters" })),
  ENCRYPTION_KEY: opt(
    z
      .string()
      .trim()
      // "NEW,OLD" while rotating: the first encrypts, the others still decrypt (docs/scaling.md).
      .refine((v) => v.split(",").every((k) => decodeKey(k) !== undefined), {
        message: "must be 32 bytes, as 64 hex digits or base64 (comma-separated while rotating)",
      }),
  ),
});

const OAUTH_TRIO = ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET"] as const;

/**
 * Which variables a mode needs: the env tokens and key in single-workspace mode; in
 * multi-workspace mode (all three OAuth variables) each workspace brings its own, and
 * ENCRYPTION_KEY is needed to keep them. One line per missing variable, in schema order.
 */
function requireByMode(env: NodeJS.ProcessEnv): string[] {
  const set = (k: string) => blankAsUnset(env[k]) !== undefined;
  const oauthSet = OAUTH_TRIO.filter(set);
  const multi = oauthSet.length === OAUTH_TRIO.length;
  const errors: string[] = [];
  if (!multi) {
    for (const k of ["SLACK_BOT_TOKEN", "INSIGHT_BASE_URL", "INSIGHT_API_KEY"] as const) {
      if (!set(k)) errors.push(`${k} is missing`);
    }
  }
  if (oauthSet.length > 0 && !multi) {
    for (const k of OAUTH_TRIO) {
      if (!set(k)) {
        errors.push(`${k} is missing (${OAUTH_TRIO.join(", ")} are set together for many workspaces)`);
      }
    }
  }
  if (multi && !set("ENCRYPTION_KEY")) {
    errors.push("ENCRYPTION_KEY is missing (many workspaces need it to store their tokens)");
  }
  return errors;
}

/** Multi-workspace mode: "Add to Slack" installs, each workspace with its own tokens and key. */
export interface MultiWorkspaceConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** The decoded 32-byte ENCRYPTION_KEY: it encrypts everything written from now on. */
  encryptionKey: Buffer;
  /** Older keys listed after it while rotating: they only decrypt (values are re-encrypted on read). */
  previousEncryptionKeys: Buffer[];
}

export interface Config {
  slack: { botToken: string; signingSecret: string; apiUrl: string };
  insight: { baseUrl: string; apiKey: string; apiVersion: string; searchParam: string };
  webhookSecret: string;
  /** `clusterNodes` set: the app runs on a Redis Cluster seeded by them (REDIS_URL gives auth/TLS). */
  redis: { url: string; prefix: string; clusterNodes: { host: string; port: number }[] | undefined };
  port: number;
  role: Role;
  spoolDir: string;
  adminUserIds: string[];
  opsChannelId: string | undefined;
  adminPassword: string | undefined;
  reconcileIntervalSeconds: number;
  weekly: { defaultCron: string; defaultTimezone: string };
  logLevel: LogLevel;
  /** The app's public HTTPS base, when known: shown with the webhook URL, the OAuth redirect. */
  publicUrl: string | undefined;
  /**
   * Set when all three OAuth variables are: many workspaces. Then `slack.botToken`,
   * `insight.apiKey` (and `insight.baseUrl` when INSIGHT_BASE_URL is unset) are empty: each
   * workspace has its own (src/workspaces/).
   */
  multiWorkspace: MultiWorkspaceConfig | undefined;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

const withTrailingSlash = (u: string) => (u.endsWith("/") ? u : `${u}/`);

/**
 * Reads the environment once into a typed config. Error lines name the variable and what is
 * wrong with it, never its value: several of these are secrets.
 */
export function loadConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const parsed = envSchema.safeParse(env);
  const missing = requireByMode(env);
  if (!parsed.success || missing.length > 0) {
    const byVar = new Map<string, string>();
    for (const issue of parsed.error?.issues ?? []) {
      const name = String(issue.path[0] ?? "environment");
      if (!byVar.has(name)) byVar.set(name, `${name} ${issue.message}`);
    }
    const order = Object.keys(envSchema.shape);
    const lines = [...byVar.entries()];
    // Mode-dependent missing variables join in schema order, so the lines read top-down.
    for (const line of missing) {
      const name = line.split(" ")[0] ?? "";
      if (!byVar.has(name)) lines.push([name, line]);
    }
    lines.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
    return { ok: false, errors: lines.map(([, line]) => line) };
  }
  const e = parsed.data;
  const [key, ...previousKeys] = (e.ENCRYPTION_KEY ?? "")
    .split(",")
    .map(decodeKey)
    .filter((k) => k !== undefined);
  const multiWorkspace =
    e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET && e.SLACK_STATE_SECRET && key
      ? {
          clientId: e.SLACK_CLIENT_ID,
          clientSecret: e.SLACK_CLIENT_SECRET,
          stateSecret: e.SLACK_STATE_SECRET,
          encryptionKey: key,
          previousEncryptionKeys: previousKeys,
        }
      : undefined;
  return {
    ok: true,
    config: {
      slack: {
        botToken: e.SLACK_BOT_TOKEN ?? "",
        signingSecret: e.SLACK_SIGNING_SECRET,
        apiUrl: withTrailingSlash(e.SLACK_API_URL ?? "https://slack.com/api/"),
      },
      insight: {
        baseUrl: (e.INSIGHT_BASE_URL ?? "").replace(/\/+$/, ""),
        apiKey: e.INSIGHT_API_KEY ?? "",
        apiVersion: e.INSIGHT_API_VERSION ?? "v1",
        searchParam: e.INSIGHT_SEARCH_PARAM ?? "query",
      },
      webhookSecret: e.WEBHOOK_SECRET,
      redis: {
        url: e.REDIS_URL ?? "redis://127.0.0.1:6379",
        prefix: e.REDIS_PREFIX ?? "insight",
        clusterNodes: e.REDIS_CLUSTER_NODES?.split(",").map((seed) => {
          const [host = "", port = "0"] = seed.trim().split(":");
          return { host, port: Number(port) };
        }),
      },
      port: e.PORT ?? 3000,
      role: e.ROLE ?? "all",
      spoolDir: e.SPOOL_DIR ?? "./data/spool",
      adminUserIds: e.ADMIN_USER_IDS ? e.ADMIN_USER_IDS.split(",").map((s) => s.trim()) : [],
      opsChannelId: e.OPS_CHANNEL_ID,
      adminPassword: e.ADMIN_PASSWORD,
      reconcileIntervalSeconds: e.RECONCILE_INTERVAL ?? 600,
      weekly: {
        defaultCron: e.WEEKLY_DEFAULT_CRON ?? "0 9 * * 1",
        defaultTimezone: e.DEFAULT_TIMEZONE ?? "UTC",
      },
      logLevel: e.LOG_LEVEL ?? "info",
      publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ""),
      multiWorkspace,
    },
  };
}

/** The secrets of a config, for log redaction and leak tests. */
export function secretsOf(config: Config): string[] {
  const mw = config.multiWorkspace;
  return [
    config.slack.botToken,
    config.slack.signingSecret,
    config.insight.apiKey,
    config.webhookSecret,
    ...(config.adminPassword ? [config.adminPassword] : []),
    ...(mw
      ? [
          mw.clientSecret,
          mw.stateSecret,
          mw.encryptionKey.toString("hex"),
          mw.encryptionKey.toString("base64"),
        ]
      : []),
  ].filter((s) => s !== "");
}
