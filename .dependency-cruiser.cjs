// Architecture rules of the house, checked by `npm run check` (and so by `npm test`).
// Each violation is printed with the module and the import that breaks the rule.
/* eslint-disable no-undef */

/** Modules that do I/O: pure code (renderers, domain logic) imports none of them, not even through another module. */
const IO_MODULES = [
  "(^|/)node_modules/(ioredis|bullmq|undici|@slack/bolt|@slack/web-api|express)/",
  "^(node:)?(fs|fs/promises|net|http|https|child_process)$",
];
const PURE = "^src/(slack/render|domain)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import circles in src/ make every module in them depend on all the others.",
      from: { path: "^(src|dev)/" },
      to: { circular: true },
    },
    {
      name: "src-not-to-dev-or-test",
      severity: "error",
      comment: "src/ is what ships: it never imports the dev tooling or the tests.",
      from: { path: "^src/" },
      to: { path: "^(dev|test)/" },
    },
    {
      name: "pure-imports-no-io",
      severity: "error",
      comment: "Renderers and domain logic are pure: no Redis, BullMQ, HTTP, Slack client or file system.",
      from: { path: PURE },
      to: { path: IO_MODULES, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "pure-reaches-no-io",
      severity: "error",
      comment: "...nor through an app module that does (followed transitively).",
      from: { path: PURE },
      to: { path: IO_MODULES, reachable: true },
    },
    {
      name: "slack-not-to-jobs",
      severity: "error",
      comment: "jobs/ may use slack/ (the outbound policy, renderers); slack/ never imports jobs/.",
      from: { path: "^src/slack/" },
      to: { path: "^src/jobs/" },
    },
    {
      name: "webhooks-not-to-jobs",
      severity: "error",
      comment:
        "The receiver acknowledges and records (into intake/); it never reaches the queues or their workers.",
      from: { path: "^src/webhooks/" },
      to: { path: "^src/jobs/" },
    },
    {
      name: "intake-not-to-webhooks",
      severity: "error",
      comment: "webhooks/ hands deliveries to intake/; the arrow points one way.",
      from: { path: "^src/intake/" },
      to: { path: "^src/webhooks/" },
    },
    {
      name: "intake-knows-only-job-contracts",
      severity: "error",
      comment:
        "The intake names jobs by their contracts (jobs/job-types.ts) and adds them through a producer it is given, never the queue machinery.",
      from: { path: "^src/intake/" },
      to: { path: "^src/jobs/", pathNot: "^src/jobs/job-types\\.ts$" },
    },
    {
      name: "ops-off-the-queue-machinery",
      severity: "error",
      comment:
        "Alerts queue a notice through a producer (jobs/job-types.ts); ops/ never builds or reads queues itself.",
      from: { path: "^src/ops/" },
      to: { path: "^src/jobs/(queue-registry|sharded-queue|healing-queue|create-worker)\\.ts$" },
    },
    {
      name: "only-the-root-imports-compose",
      severity: "error",
      comment: "The composition root (main.ts, compose/) imports the features; no feature imports it.",
      from: { path: "^src/", pathNot: "^src/(main\\.ts$|compose/)" },
      to: { path: "^src/compose/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
