import type { Installation } from "@slack/bolt";

/** A team installation as Bolt builds it from oauth.v2.access. */
export function teamInstall(teamId: string, token: string, o: Partial<Installation> = {}): Installation {
  return {
    team: { id: teamId, name: `Team ${teamId}` },
    enterprise: undefined,
    user: { id: "U0INSTALLER", token: undefined, scopes: undefined },
    bot: { token, scopes: ["commands", "chat:write"], id: "B0BOT", userId: "U0BOT" },
    isEnterpriseInstall: false,
    authVersion: "v2",
    ...o,
  };
}
