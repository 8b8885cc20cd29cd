import type { JobSchedulerJson, JobSchedulerTemplateOptions } from "bullmq";

/** A job scheduler as the features read it back. */
export type SchedulerInfo = Pick<JobSchedulerJson, "key" | "pattern" | "tz" | "next">;

/** The job schedulers a workspace keeps in a shared queue (weekly summaries, digest periods): its own only. */
export interface JobSchedulers<T> {
  upsertJobScheduler(
    id: string,
    repeat: { pattern: string; tz?: string },
    template: { name: string; data: T; opts?: JobSchedulerTemplateOptions },
  ): Promise<unknown>;
  getJobScheduler(id: string): Promise<SchedulerInfo | undefined>;
  getJobSchedulers(start?: number, end?: number, asc?: boolean): Promise<SchedulerInfo[]>;
  removeJobScheduler(id: string): Promise<boolean>;
}
