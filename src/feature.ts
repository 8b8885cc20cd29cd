import type { App } from "@slack/bolt";
import type { Processor, WorkerOptions } from "bullmq";
import type { Router } from "express";

/*
 * The plug-in contract: what a feature hands the composition root. Library types only, so a
 * feature's folder imports this file and nothing of the root, and the root imports the
 * features: the arrows point one way.
 */

/** A queue's worker, as data: the root starts it through the one worker factory. */
export interface QueueWorker {
  /** The queue it consumes (one of QUEUE_NAMES). */
  queue: string;
  processor: Processor;
  concurrency: number;
  settings?: WorkerOptions["settings"];
  /** The role whose processes run it; default "worker". */
  role?: "worker" | "scheduler";
}

/**
 * A feature: its `/insight` subcommands, interactions and HTTP routes (web role), its queue
 * workers (worker role, or scheduler), and its repeating work (scheduler role). Generic over
 * the subcommand type, which the app defines.
 */
export interface Feature<Command> {
  name: string;
  /** Web role: subcommands, in the order `help` lists them. */
  subcommands?: readonly Command[];
  /** Web role: actions, views and events; `subcommands` is the whole app's list, help first. */
  interactions?(app: App, subcommands: readonly Command[]): void;
  /** Web role: extra HTTP routes on the one port. */
  routes?(): Router[];
  /** Queue workers, started in their role's processes. */
  workers?: readonly QueueWorker[];
  /**
   * Scheduler role: starts the deployment's repeating work (one job scheduler on the shared
   * queue, whatever the number of workspaces); returns its stop.
   */
  startScheduler?(): Promise<() => Promise<void>>;
  /**
   * Scheduler role, at start: makes the per-channel job schedulers match what is stored. With
   * many workspaces the root runs it once inside each installed workspace.
   */
  reassertSchedules?(): Promise<{ restored: string[]; removed: string[] }>;
}
