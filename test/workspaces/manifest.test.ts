import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { OAUTH_REDIRECT_PATH } from "../../src/slack/install/oauth-options.js";
import { INSTALL_SCOPES } from "../../src/slack/install/scopes.js";

const root = join(import.meta.dirname, "..", "..");
const fixtures = join(import.meta.dirname, "..", "fixtures", "slack-app-manifest");
const json = (name: string) =>
  JSON.parse(readFileSync(join(fixtures, name), "utf8")) as Record<string, unknown>;
const SCHEMA_BASE = "https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/";

type Manifest = {
  oauth_config: { redirect_urls?: string[]; scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] }; org_deploy_enabled: boolean };
};
const load = (file: string) => parse(readFileSync(join(root, file), "utf8")) as Record<string, unknown>;
const single = load("manifest.yml");
const multi = load("manifest.multi-workspace.yml");
const m = multi as unknown as Manifest;

describe("manifest.multi-workspace.yml", () => {
  it("is valid against Slack's published manifest schema", () => {
    // Same set-up as test/manifest.test.ts: the vendored schemas, `regex` enforced.
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addKeyword({
      keyword: "regex",
      type: "string",
      schemaType: "string",
      validate: (re: string, data: string) => new RegExp(re).test(data),
    });
    ajv.addFormat("uri", (s: string) => URL.canParse(s));
    ajv.addSchema(json("manifest.schema.1.0.0.json"), `${SCHEMA_BASE}manifest.schema.1.0.0.json`);
    ajv.addSchema(json("manifest.schema.2.0.0.json"), `${SCHEMA_BASE}manifest.schema.2.0.0.json`);
    const validate = ajv.compile(json("manifest.schema.json"));
    expect(validate(multi), JSON.stringify(validate.errors)).toBe(true);
  });

  it("asks for exactly the scopes the installer requests, and redirects to our OAuth route", () => {
    expect([...m.oauth_config.scopes.bot].sort()).toEqual([...INSTALL_SCOPES].sort());
    const [redirect, ...others] = m.oauth_config.redirect_urls ?? [];
    expect(others).toEqual([]);
    expect(new URL(redirect ?? "").pathname).toBe(OAUTH_REDIRECT_PATH);
  });

  it("hears uninstalls and revoked tokens, allows org-wide installs, and is otherwise manifest.yml", () => {
    expect(m.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_home_opened", "app_uninstalled", "tokens_revoked"]),
    );
    expect(m.settings.org_deploy_enabled).toBe(true);
    const strip = (x: Record<string, unknown>) => {
      const c = structuredClone(x) as unknown as Manifest & Record<string, unknown>;
      c.oauth_config = { scopes: { bot: [] } };
      c.settings = {
        ...c.settings,
        event_subscriptions: { ...c.settings.event_subscriptions, bot_events: [] },
      };
      c.settings.org_deploy_enabled = false;
      return c;
    };
    expect(strip(multi)).toEqual(strip(single));
  });
});
