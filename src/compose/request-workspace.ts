import type { Context } from "@slack/bolt";
import type { AppWorkspace } from "./app-workspace.js";
import type { Deployment } from "./deployment.js";

/*
 * A Slack request's workspace, resolved once by Bolt middleware and handed to the listeners on
 * Bolt's own `context` argument (explicitly, as probot hands a Context per event), never through
 * ambient state.
 */

const KEY = "insightWorkspace";

/** Bolt middleware's step: finds the request's workspace; false when it is not installed. */
export function workspaceResolver(d: Deployment): (context: Context) => Promise<boolean> {
  return async (context) => {
    const id = d.idOfRequest(context);
    const ws = id ? await d.workspaces.get(id) : undefined;
    if (!ws) return false;
    context[KEY] = ws;
    return true;
  };
}

/** The workspace the middleware resolved for this request. */
export function workspaceOfRequest(context: Context): AppWorkspace {
  const ws = context[KEY] as AppWorkspace | undefined;
  // Every listener runs after the middleware: a request without one is a wiring mistake.
  if (!ws) throw new Error("no workspace was resolved for this request");
  return ws;
}
