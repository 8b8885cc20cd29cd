import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { isMap, isScalar, isSeq, parse, parseDocument } from "yaml";
import { silentLogger } from "../src/log.js";
import { SLACK_EVENTS_PATH } from "../src/slack/app.js";
import { coreSubcommands } from "../src/slack/commands/feature.js";
import { CommandRouter } from "../src/slack/commands/router.js";
import { fakeCommandsDeps } from "./helpers/fakes.js";

const root = join(import.meta.dirname, "..");
const fixtures = join(import.meta.dirname, "fixtures", "slack-app-manifest");
const json = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(fixtures, name), "utf8")) as Record<string, unknown>;

/** Where the dispatching schema finds the versioned ones (kept offline: the copies are vendored). */
const SCHEMA_BASE = "https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/";

function validator() {
  // strict off: the published schema uses keywords outside JSON Schema (e.g. `regex`).
  const ajv = new Ajv({ strict: false, allErrors: true });
  // `regex` is Slack's spelling of `pattern` (background_color); enforce it rather than ignore it.
  ajv.addKeyword({
    keyword: "regex",
    type: "string",
    schemaType: "string",
    validate: (re: string, data: string) => new RegExp(re).test(data),
  });
  ajv.addFormat("uri", (s: string) => URL.canParse(s));
  ajv.addSchema(json("manifest.schema.1.0.0.json"), `${SCHEMA_BASE}manifest.schema.1.0.0.json`);
  ajv.addSchema(json("manifest.schema.2.0.0.json"), `${SCHEMA_BASE}manifest.schema.2.0.0.json`);
  return ajv.compile(json("manifest.schema.json"));
}

const manifestText = readFileSync(join(root, "manifest.yml"), "utf8");
const manifest = parse(manifestText) as Record<string, unknown>;
type Manifest = {
  display_information: { name: string; description?: string; long_description?: string };
  features: {
    app_home: { home_tab_enabled: boolean; messages_tab_enabled?: boolean };
    assistant_view?: { assistant_description: string };
    bot_user: { display_name: string };
    slash_commands: { command: string; url: string; usage_hint?: string; description: string }[];
  };
  oauth_config: { scopes: { bot: string[]; user?: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    socket_mode_enabled: boolean;
  };
};
const m = manifest as unknown as Manifest;

describe("manifest.yml", () => {
  const validate = validator();

  it("is valid against Slack's published manifest schema", () => {
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("the schema really checks: Slack's sample passes, broken copies fail", () => {
    expect(validate(json("manifest.valid.json"))).toBe(true);
    const broken = (change: (x: Manifest) => void) => {
      const copy = structuredClone(manifest) as unknown as Manifest;
      change(copy);
      return validate(copy);
    };
    expect(broken((x) => (x.display_information.name = "x".repeat(36)))).toBe(false);
    expect(broken((x) => Object.assign(x.features.bot_user, { nickname: "relay" }))).toBe(false);
    expect(
      broken(
        (x) =>
          (x.features.slash_commands[0] = { ...x.features.slash_commands[0], command: "insight" } as never),
      ),
    ).toBe(false);
    expect(broken((x) => Object.assign(x.display_information, { background_color: "blue!!" }))).toBe(false);
    expect(broken((x) => Object.assign(x.settings.interactivity, { is_enabled: "yes" }))).toBe(false);
  });

  it("has /insight with a usage hint naming every subcommand, all routes at /slack/events", () => {
    const [cmd, ...others] = m.features.slash_commands;
    expect(others).toEqual([]);
    expect(cmd?.command).toBe("/insight");
    const { deps } = fakeCommandsDeps();
    const router = new CommandRouter(
      { logger: silentLogger, adminUserIds: [], reportInsightError: async () => undefined },
      coreSubcommands(deps),
    );
    for (const c of router.all) expect(cmd?.usage_hint, c.name).toContain(c.name);
    expect(cmd?.usage_hint).toContain("weekly");
    expect(cmd?.usage_hint).toContain("ask <question>");
    const urls = [cmd?.url, m.settings.event_subscriptions.request_url, m.settings.interactivity.request_url];
    for (const u of urls) {
      expect(u).toMatch(/^https:\/\//);
      expect(new URL(u ?? "").pathname).toBe(SLACK_EVENTS_PATH);
    }
    expect(m.settings.socket_mode_enabled).toBe(false);
    expect(m.settings.interactivity.is_enabled).toBe(true);
  });

  it("has a bot user, the Home tab and the app_home_opened event", () => {
    expect(m.display_information.name).toBe("Insight Relay");
    expect(m.display_information.long_description?.length).toBeGreaterThanOrEqual(175);
    expect(m.features.bot_user.display_name).toBe("Insight Relay");
    expect(m.features.app_home.home_tab_enabled).toBe(true);
    expect(m.settings.event_subscriptions.bot_events).toContain("app_home_opened");
  });

  it("has the assistant: its feature, its events and no others, each justified by a comment", () => {
    expect(m.features.assistant_view?.assistant_description.length).toBeGreaterThan(20);
    // The assistant's threads live in the app's messages tab.
    expect(m.features.app_home.messages_tab_enabled).toBe(true);
    expect(m.settings.event_subscriptions.bot_events).toEqual([
      "app_home_opened",
      "assistant_thread_started",
      "assistant_thread_context_changed",
      "message.im",
      "app_mention",
    ]);
    const doc = parseDocument(manifestText);
    const events = doc.getIn(["settings", "event_subscriptions", "bot_events"], true);
    if (!isSeq(events)) throw new Error("bot_events is not a list");
    for (const item of events.items) {
      expect(isScalar(item) ? (item.comment?.trim().length ?? 0) : 0, String(item)).toBeGreaterThan(10);
    }
  });

  it("asks for exactly the bot scopes the app uses, each justified by a comment", () => {
    expect([...m.oauth_config.scopes.bot].sort()).toEqual(
      [
        "channels:history",
        "channels:join",
        "chat:write",
        "commands",
        "files:write",
        "groups:history",
        "im:write",
        "assistant:write",
        "im:history",
        "app_mentions:read",
        "users:read",
      ].sort(),
    );
    expect(m.oauth_config.scopes.user).toBeUndefined();
    const doc = parseDocument(manifestText);
    const bot = doc.getIn(["oauth_config", "scopes", "bot"], true);
    expect(isSeq(bot)).toBe(true);
    if (!isSeq(bot)) return;
    for (const item of bot.items) {
      // The justification is the item's trailing `# comment`.
      const comment = isScalar(item) ? item.comment : undefined;
      expect(
        comment?.trim().length ?? 0,
        `scope ${String(isScalar(item) ? item.value : item)} has no comment`,
      ).toBeGreaterThan(10);
    }
    expect(isMap(doc.contents)).toBe(true);
  });
});
