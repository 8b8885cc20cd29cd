import type { App, Context } from "@slack/bolt";
import type { Job, Processor, WorkerOptions } from "bullmq";
import type { Router } from "express";
import type { DepsOf, Feature, WorkspaceHas } from "../feature.js";
import { CommandRouter } from "../slack/commands/router.js";
import type { Subcommand } from "../slack/commands/types.js";
import type { KnownBlock } from "../slack/render/known-blocks.js";
import type { WorkspaceServices } from "./workspace-services.js";

/**
 * One workspace as every entry point resolves it: its services (its own stores and clients),
 * its `/insight` subcommands, and (many workspaces) its Home tab's connection section. Each
 * feature's deps in it are built from these once (`plug`).
 */
export interface AppWorkspace extends WorkspaceServices {
  readonly commands: CommandRouter;
  homeTop?: (userId: string) => Promise<KnownBlock[]>;
}

/** A feature's worker with the workspace resolved by the root. */
export interface BoundWorker {
  queue: string;
  concurrency: number;
  settings?: WorkerOptions["settings"];
  role: "worker" | "scheduler";
  /** The processor of a workspace's jobs; undefined for a deployment-wide tick. */
  processor?: (ws: AppWorkspace) => Processor;
  /** A deployment-wide tick's work for one workspace. */
  eachWorkspace?: (ws: AppWorkspace, job: Job) => Promise<unknown>;
  /** The tick runs only for workspaces that have one of these. */
  dueWhen?: readonly WorkspaceHas[];
}

/** A feature paired with how its deps are cut from a workspace: what the root starts. */
export interface BoundFeature {
  name: string;
  subcommands(ws: AppWorkspace): readonly Subcommand[];
  interactions(app: App, workspaceOf: (context: Context) => AppWorkspace): void;
  routes(): Router[];
  workers: readonly BoundWorker[];
  startScheduler?(): Promise<() => Promise<void>>;
  reassertSchedules?(ws: AppWorkspace): Promise<{ restored: string[]; removed: string[] }>;
}

/** Kept per workspace object: built once, dropped with the workspace. */
function perWorkspace<T>(make: (ws: AppWorkspace) => T): (ws: AppWorkspace) => T {
  const made = new WeakMap<AppWorkspace, T>();
  return (ws) => {
    const hit = made.get(ws);
    if (hit !== undefined) return hit;
    const value = make(ws);
    made.set(ws, value);
    return value;
  };
}

/**
 * A feature with the function that cuts its deps from a workspace (narrow-deps.ts): the deps,
 * and each worker's processor, are made once per workspace.
 */
export function plug<D>(feature: Feature<D, Subcommand>, depsOf: (ws: AppWorkspace) => D): BoundFeature {
  const deps = perWorkspace(depsOf);
  return {
    name: feature.name,
    subcommands: (ws) => feature.subcommands?.(deps(ws)) ?? [],
    interactions: (app, workspaceOf) => {
      const requestDeps: DepsOf<D> = (context) => deps(workspaceOf(context));
      feature.interactions?.(app, requestDeps);
    },
    routes: () => feature.routes?.() ?? [],
    workers: (feature.workers ?? []).map((w): BoundWorker => {
      const base = {
        queue: w.queue,
        concurrency: w.concurrency,
        ...(w.settings ? { settings: w.settings } : {}),
        role: w.role ?? "worker",
      };
      if (w.processor) {
        const make = w.processor;
        return { ...base, processor: perWorkspace((ws) => make(deps(ws))) };
      }
      const each = w.eachWorkspace;
      return {
        ...base,
        eachWorkspace: (ws, job) => each(deps(ws), job),
        ...(w.dueWhen ? { dueWhen: w.dueWhen } : {}),
      };
    }),
    ...(feature.startScheduler ? { startScheduler: feature.startScheduler } : {}),
    ...(feature.reassertSchedules
      ? {
          reassertSchedules: (ws: AppWorkspace) =>
            feature.reassertSchedules?.(deps(ws)) ?? Promise.resolve({ restored: [], removed: [] }),
        }
      : {}),
  };
}

/** A workspace's context: its services, and its subcommands from every feature (built on first use). */
export function appWorkspace(
  services: WorkspaceServices,
  features: readonly BoundFeature[],
  homeTop?: (ws: WorkspaceServices, userId: string) => Promise<KnownBlock[]>,
): AppWorkspace {
  let router: CommandRouter | undefined;
  const ws: AppWorkspace = {
    ...services,
    ...(homeTop ? { homeTop: (userId: string) => homeTop(services, userId) } : {}),
    get commands() {
      router ??= new CommandRouter(
        {
          logger: services.logger,
          adminUserIds: services.config.adminUserIds,
          // A command's failure is its workspace's: a refused key goes to that workspace's admins.
          reportInsightError: services.reportInsightError,
        },
        features.flatMap((f) => f.subcommands(ws)),
      );
      return router;
    },
  };
  return ws;
}
