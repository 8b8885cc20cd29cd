// What the bundle loads for `bullmq` (scripts/build.ts): the classes the app uses, from their own
// modules of BullMQ's CommonJS build (it declares no `exports`, so Node allows the paths). Its
// index also loads every other backend BullMQ ships (PostgreSQL, Bun, Valkey GLIDE, node-redis
// and its relay): 70 more modules and 1.1 MB more of the idle app's heap. A value the app
// imports that is not here fails the build; types still come from `bullmq` itself.
export { Queue } from "bullmq/dist/cjs/classes/queue.js";
export { Worker } from "bullmq/dist/cjs/classes/worker.js";
export { LockManager } from "bullmq/dist/cjs/classes/lock-manager.js";
export { DelayedError, UnrecoverableError } from "bullmq/dist/cjs/classes/errors/index.js";
