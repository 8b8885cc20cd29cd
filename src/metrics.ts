import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { capturingEventLoopHistogram, sampleWhileBusy } from "./event-loop-sampling.js";

/**
 * Every metric of the app, on one registry per process (tests create their own, so parallel
 * apps in one test process do not share counters).
 */
export function createMetrics(opts: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaultMetrics) {
    const histogram = capturingEventLoopHistogram(() =>
      collectDefaultMetrics({
        register: registry,
        prefix: "insight_relay_",
        // The event-loop lag histogram samples on a timer: prom-client's 10 ms woke an idle
        // process a hundred times a second (bench:steady's idle row). Once a second still shows
        // any lag that matters to a scrape, and only while the process works.
        eventLoopMonitoringPrecision: 1_000,
      }),
    );
    if (histogram) sampleWhileBusy(histogram);
  }
  const r = [registry];
  return {
    registry,
    deliveries: new Counter({
      name: "insight_relay_webhook_deliveries_total",
      help: "Webhook deliveries classified by the intake pump, by webhook type and outcome (queued, duplicate, dead_letter)",
      labelNames: ["type", "outcome"] as const,
      registers: r,
    }),
    acks: new Counter({
      name: "insight_relay_webhook_acks_total",
      help: "Webhook deliveries acknowledged, by where they were kept (recorded: in Redis; spooled: on local disk)",
      labelNames: ["outcome"] as const,
      registers: r,
    }),
    wrongSecrets: new Counter({
      name: "insight_relay_webhook_wrong_secret_total",
      help: "Webhook requests with a wrong secret, by whether their address was over its limit (answered slowly)",
      labelNames: ["limited"] as const,
      registers: r,
    }),
    ackSeconds: new Histogram({
      name: "insight_relay_webhook_ack_seconds",
      help: "Time from receiving a webhook delivery to answering it",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
    deadLetters: new Counter({
      name: "insight_relay_dead_letters_total",
      help: "Deliveries kept as dead letters, by reason",
      labelNames: ["reason"] as const,
      registers: r,
    }),
    spoolSize: new Gauge({
      name: "insight_relay_spool_deliveries",
      help: "Deliveries waiting in the local spool for Redis to come back",
      registers: r,
    }),
    workspaces: new Gauge({
      name: "insight_relay_workspaces",
      help: "Multi-workspace mode: installed workspaces, and those with the Insight Service connected (no workspace names in labels)",
      labelNames: ["state"] as const,
      registers: r,
    }),
    installs: new Counter({
      name: "insight_relay_installs_total",
      help: "Multi-workspace mode: Add to Slack attempts by outcome (installed, denied, bad_state, expired_state, failed)",
      labelNames: ["outcome"] as const,
      registers: r,
    }),
    workspaceQueueDepth: new Gauge({
      name: "insight_relay_workspace_queue_depth",
      help: "Multi-workspace mode: waiting jobs of the busiest workspaces per queue, by rank (1 = busiest, up to 10) and the sum of the others; the admin page names them",
      labelNames: ["queue", "rank"] as const,
      registers: r,
    }),
    queueDepth: new Gauge({
      name: "insight_relay_queue_jobs",
      help: "Jobs per queue and state",
      labelNames: ["queue", "state"] as const,
      registers: r,
    }),
    overdueJobs: new Gauge({
      name: "insight_relay_overdue_jobs",
      help: "Jobs overdue by more than a minute, by queue (one shard) and state: delayed past their time and not moved to waiting, or waiting while no worker takes the next one",
      labelNames: ["queue", "state"] as const,
      registers: r,
    }),
    slackCalls: new Counter({
      name: "insight_relay_slack_api_calls_total",
      help: "Slack Web API calls by method and outcome (ok, or the Slack error code)",
      labelNames: ["method", "outcome"] as const,
      registers: r,
    }),
    insightCalls: new Counter({
      name: "insight_relay_insight_api_calls_total",
      help: "Insight API calls by endpoint and HTTP status (or error code when there was no status)",
      labelNames: ["endpoint", "status"] as const,
      registers: r,
    }),
    unfollowedDeliveries: new Counter({
      name: "insight_relay_unfollowed_deliveries_total",
      help: "Deliveries of a group no channel follows, dropped as they left the intake (no job)",
      registers: r,
    }),
    jobs: new Counter({
      name: "insight_relay_jobs_total",
      help: "Jobs finished by queue and outcome",
      labelNames: ["queue", "outcome"] as const,
      registers: r,
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
