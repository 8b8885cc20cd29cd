import type { App } from "@slack/bolt";
import type { Worker } from "bullmq";
import type { Router } from "express";
import { adminModule } from "./admin/module.js";
import { reconcileModule } from "./reconcile/module.js";
import type { AppServices } from "./runtime.js";
import { commandsModule } from "./slack/commands/module.js";
import type { CommandRouter } from "./slack/commands/router.js";
import { weeklyModule } from "./weekly/module.js";

/**
 * A feature that plugs into the roles: its subcommands and interactions (web), its queue
 * workers (worker) and its repeating jobs (scheduler). The relay core is not a module; the
 * features around it are, so each lives in its own folder and is listed once below.
 */
export interface RelayModule {
  name: string;
  /** Web role: register `/insight` subcommands. */
  commands?(router: CommandRouter, services: AppServices): void;
  /** Web role: register actions, views, shortcuts and events on the Bolt app. */
  interactions?(app: App, services: AppServices): void;
  /** Web role: extra HTTP routes on the one port. */
  routes?(services: AppServices): Router[];
  /** Worker role: start this module's queue workers. */
  startWorkers?(services: AppServices): Promise<Worker[]>;
  /** Scheduler role: start repeating work; returns a stop function. */
  startScheduler?(services: AppServices): Promise<() => Promise<void>>;
  /** Any role: fill in service hooks (e.g. describeSchedule) before roles start. */
  init?(services: AppServices): void;
}

/** Every feature module, in the order `help` lists their subcommands. */
export const MODULES: RelayModule[] = [
  // one line per module
  adminModule,
  commandsModule,
  weeklyModule,
  reconcileModule,
];
