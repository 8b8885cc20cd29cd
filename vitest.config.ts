import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-redis.ts"],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration suites share two cores with Redis, the emulator and the stand-in Slack.
    maxWorkers: 2,
  },
});
