import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Which workspace the work in progress belongs to, in multi-workspace mode: set once where a
 * request or job enters (Bolt middleware by team id, the webhook route by secret, a worker by
 * the job's `workspaceId`) and read by the per-workspace services below it. Unset in
 * single-workspace mode, where there is one workspace and nothing to choose.
 */
const als = new AsyncLocalStorage<string>();

export function runInWorkspace<T>(workspaceId: string, fn: () => T): T {
  return als.run(workspaceId, fn);
}

export function currentWorkspaceId(): string | undefined {
  return als.getStore();
}
