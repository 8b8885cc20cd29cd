import type { Services } from "./build-services.js";
import { startRolesThread } from "./start-roles-thread.js";
import { migrateState, startRoles, type RunningRoles } from "./start-roles.js";

/** What a worker thread answers when its probe cannot be had: readiness says not ready, and why. */
const UNANSWERED = "worker thread";

/**
 * What a process runs for `config.role`. `web`, `worker` and `scheduler` run here, on this
 * thread. `all` (the default) runs the web role here and the worker and scheduler roles on a
 * second thread of the same process, started from `threadEntry` (the process's own entry
 * script, which runs `runRolesThread` when it finds itself on that thread): two event loops, so
 * that an acknowledgement never waits behind a batch being worked (rule 1) and the two use two
 * cores. Readiness, the health watch and /metrics of the web thread cover the other's workers;
 * a workspace forgotten on one is forgotten on the other. Without a JavaScript `threadEntry`
 * every role runs on this thread (the tests' in-process apps, the demo, the source under tsx).
 */
export async function startProcess(s: Services, o: { threadEntry?: URL } = {}): Promise<RunningRoles> {
  // From TypeScript source (a loader such as tsx), a worker thread cannot load the entry (Node 20
  // gives workers no loader hooks): every role runs here then, as before the split.
  const threadEntry = o.threadEntry && /\.[cm]?js$/.test(o.threadEntry.pathname) ? o.threadEntry : undefined;
  if (s.config.role !== "all" || !threadEntry) return startRoles(s);
  // Before either thread reads or writes the state.
  await migrateState(s);
  const thread = await startRolesThread({
    entry: threadEntry,
    roles: ["worker", "scheduler"],
    tuning: s.tuning,
    legacyRefsRemain: s.legacyRefs.mayRemain,
    logger: s.logger,
  });
  let running: RunningRoles;
  try {
    running = await startRoles(
      s,
      {},
      {
        roles: ["web"],
        migrate: false,
        elsewhere: {
          health: {
            queueNames: () => thread.health.queueNames(),
            // No answer in time is an answer: its workers are not known to work.
            probe: () =>
              thread.health
                .probe()
                .catch((err: unknown) => [
                  { name: UNANSWERED, ok: false, reason: err instanceof Error ? err.message : "no answer" },
                ]),
          },
          metrics: () => thread.metrics(),
          forget: (id) => thread.forget(id),
        },
      },
    );
  } catch (err) {
    await thread.stop();
    throw err;
  }
  const stopWeb = running.stop;
  // The web role stops taking deliveries first; the workers then finish what they hold.
  running.stop = async () => {
    await stopWeb();
    await thread.stop();
  };
  running.died = thread.died;
  return running;
}
