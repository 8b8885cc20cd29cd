import type { Feature } from "../feature.js";
import type { Logger } from "../log.js";
import type { Workspaces } from "./workspaces.js";

/**
 * At start of the scheduler role: each feature's per-channel job schedulers (weekly summaries,
 * digest periods) are made to match what is stored. With many workspaces each one's schedules
 * are its own (its state, its view of the shared queues), so this runs inside each installed
 * workspace in turn. Never fatal: the schedulers already in Redis keep firing, and the next
 * start checks again.
 */
export async function reassertSchedules<C>(
  features: readonly Feature<C>[],
  logger: Logger,
  workspaces?: Workspaces,
): Promise<void> {
  const withSchedules = features.filter((f) => f.reassertSchedules);
  if (withSchedules.length === 0) return;
  const reassertAll = async (log: Logger) => {
    for (const f of withSchedules) {
      try {
        const r = await f.reassertSchedules?.();
        if (r && (r.restored.length > 0 || r.removed.length > 0))
          log.info(r, `${f.name} schedules re-asserted`);
      } catch (err) {
        log.warn({ err }, `could not check ${f.name} schedules`);
      }
    }
  };
  if (!workspaces) return reassertAll(logger);
  try {
    await workspaces.forEach(
      (id) => reassertAll(logger.child({ workspace: id })),
      (id, err) => logger.warn({ err, workspace: id }, "could not check this workspace's schedules"),
    );
  } catch (err) {
    // The list of workspaces could not be read (Redis down at start).
    logger.warn({ err }, "could not check the workspaces' schedules");
  }
}
