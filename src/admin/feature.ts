import type { Queue } from "bullmq";
import type { Feature } from "../feature.js";
import { adminRouter } from "./board.js";
import { workspacesRouter, type WorkspaceRow } from "./workspaces-page.js";

export interface AdminFeatureDeps {
  /** ADMIN_PASSWORD; unset: the page is off. */
  password: string | undefined;
  /** Every queue of the app. */
  queues: () => Queue[];
  /** Multi-workspace mode: the installed workspaces, listed at /admin/workspaces. */
  workspaces?: () => Promise<WorkspaceRow[]>;
}

/**
 * The admin page (the BullMQ dashboard, and in multi-workspace mode the list of workspaces):
 * present only when ADMIN_PASSWORD is set.
 */
export function adminFeature<D, Command>(deps: AdminFeatureDeps): Feature<D, Command> {
  const { password } = deps;
  return {
    name: "admin",
    routes: () => {
      if (!password) return [];
      const { workspaces } = deps;
      return [
        adminRouter(deps.queues(), password),
        ...(workspaces ? [workspacesRouter(workspaces, password)] : []),
      ];
    },
  };
}
