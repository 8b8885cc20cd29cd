import type { Queue } from "bullmq";
import type { Feature } from "../feature.js";
import { adminRouter } from "./board.js";

export interface AdminFeatureDeps {
  /** ADMIN_PASSWORD; unset: the page is off. */
  password: string | undefined;
  /** Every queue of the app. */
  queues: () => Queue[];
}

/** The admin page (the BullMQ dashboard): present only when ADMIN_PASSWORD is set. */
export function adminFeature<Command>(deps: AdminFeatureDeps): Feature<Command> {
  const { password } = deps;
  return {
    name: "admin",
    routes: () => (password ? [adminRouter(deps.queues(), password)] : []),
  };
}
