import {
  startWorkers,
  type StartedWorkers,
  type WorkerSpec,
  type WorkerTuning,
} from "../../src/jobs/create-worker.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { createLogger, type Logger } from "../../src/log.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { createRedis, type RedisClient } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "./redis.js";

export interface WorkersOnTestRedis {
  prefix: string;
  redis: RedisClient;
  queues: Queues;
  /** Starts the workers of `specs` (the app's factory) over the test Redis, under this prefix. */
  start(specs: WorkerSpec[], o?: { metrics?: Pick<Metrics, "jobs">; tuning?: WorkerTuning }): StartedWorkers;
  /** Closes the workers started, the queues and the connection, and drops the prefix. */
  close(): Promise<void>;
}

/**
 * The app's queues and worker factory on the test Redis under a prefix of their own (`tag`),
 * logging to `logger` (silent by default): the set-up of every test that runs real workers.
 */
export function workersOnTestRedis(
  tag: string,
  logger: Logger = createLogger({ level: "silent" }),
): WorkersOnTestRedis {
  const prefix = uniquePrefix(tag);
  const redis = createRedis(testRedisUrl(), "shared", logger);
  const queues = createQueues(redis, prefix);
  const started: StartedWorkers[] = [];
  return {
    prefix,
    redis,
    queues,
    start(specs, o = {}) {
      const workers = startWorkers(
        specs,
        {
          redisUrl: testRedisUrl(),
          prefix,
          logger,
          metrics: o.metrics ?? createMetrics(),
          ...(o.tuning ? { tuning: o.tuning } : {}),
        },
        (name) => queues.byName(name),
      );
      started.push(workers);
      return workers;
    },
    async close() {
      for (const s of started) await s.close();
      await queues.close();
      redis.disconnect();
      await dropPrefix(prefix);
    },
  };
}
