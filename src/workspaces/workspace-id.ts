/**
 * The workspace a Slack request, an installation or an event belongs to: the team, or the
 * enterprise for an org-wide install. Every piece of state is keyed by it (rule 12).
 */
export function workspaceIdOf(q: {
  isEnterpriseInstall?: boolean | undefined;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}): string | undefined {
  return q.isEnterpriseInstall && q.enterpriseId ? q.enterpriseId : q.teamId;
}

/**
 * The one workspace of a single-workspace deployment (the env tokens): its state keeps the
 * deployment's own keys, and its jobs carry this id. Slack team and enterprise ids start with
 * `T` or `E`, so it never names an installed workspace.
 */
export const SINGLE_WORKSPACE_ID = "single";
