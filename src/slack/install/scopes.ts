/**
 * The bot scopes "Add to Slack" asks for: manifest.multi-workspace.yml's, which
 * test/workspaces/manifest.test.ts keeps equal to this list.
 */
export const INSTALL_SCOPES = [
  "chat:write",
  "commands",
  "channels:history",
  "groups:history",
  "files:write",
  "channels:join",
  "im:write",
  "assistant:write",
  "im:history",
  "app_mentions:read",
  "users:read",
] as const;
