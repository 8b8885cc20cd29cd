import type { App, Context } from "@slack/bolt";
import type { Job, Processor, WorkerOptions } from "bullmq";
import type { Router } from "express";
import type { WorkspaceHas } from "./store/keys.js";

/*
 * The plug-in contract: what a feature hands the composition root. Library types only, so a
 * feature's folder imports this file and nothing of the root, and the root imports the
 * features: the arrows point one way.
 *
 * A feature is built once for the deployment; everything that acts for a workspace takes that
 * workspace's `D` (the feature's narrow deps, built over the workspace's own stores and clients):
 * each entry point resolves its workspace first (a Slack request's team, a job's `workspaceId`)
 * and hands the feature that workspace's deps, explicitly.
 */

/** A request's deps, from the workspace the root resolved for it (Bolt's `context`). */
export type DepsOf<D> = (context: Context) => D;

interface WorkerSettings {
  /** The queue it consumes (one of QUEUE_NAMES). */
  queue: string;
  concurrency: number;
  settings?: WorkerOptions["settings"];
  /** The role whose processes run it; default "worker". */
  role?: "worker" | "scheduler";
}

/**
 * A workspace with none of the `dueWhen` it names is not visited by a tick at all, nor looked at:
 * a tick reads the deployment's sets of workspaces that have them (store/workspaces-with.ts).
 */
export type { WorkspaceHas };

/**
 * A queue's worker, as data: the root starts it through the one worker factory. A workspace's
 * job runs the processor made from that workspace's deps (a job without a workspace is
 * refused); a deployment-wide tick (reconcile, alerts: one job scheduler for the deployment)
 * runs `eachWorkspace` for every workspace connected to a service, a few at a time.
 */
export type QueueWorker<D> = WorkerSettings &
  (
    | { processor: (deps: D) => Processor; eachWorkspace?: never }
    | {
        eachWorkspace: (deps: D, job: Job) => Promise<unknown>;
        /** Run only for workspaces that have one of these (default: every workspace). */
        dueWhen?: readonly WorkspaceHas[];
        processor?: never;
      }
  );

/**
 * A feature: its `/insight` subcommands, interactions and HTTP routes (web role), its queue
 * workers (worker role, or scheduler), and its repeating work (scheduler role). Generic over
 * its deps and the subcommand type, which the app defines.
 */
export interface Feature<D, Command> {
  name: string;
  /** Web role: a workspace's subcommands, in the order `help` lists them. */
  subcommands?(deps: D): readonly Command[];
  /** Web role: actions, views and events, registered once; each request gets its workspace's deps. */
  interactions?(app: App, depsOf: DepsOf<D>): void;
  /** Web role: extra HTTP routes on the one port (the deployment's). */
  routes?(): Router[];
  /** Queue workers, started in their role's processes. */
  workers?: readonly QueueWorker<D>[];
  /**
   * Scheduler role: starts the deployment's repeating work (one job scheduler on the shared
   * queue, whatever the number of workspaces); returns its stop.
   */
  startScheduler?(): Promise<() => Promise<void>>;
  /** Scheduler role, at start, for each workspace: makes its per-channel job schedulers match what is stored. */
  reassertSchedules?(deps: D): Promise<{ restored: string[]; removed: string[] }>;
}
