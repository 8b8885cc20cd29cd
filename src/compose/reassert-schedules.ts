import type { Logger } from "../log.js";
import type { AppWorkspace } from "./app-workspace.js";
import type { Deployment } from "./deployment.js";

/**
 * At start of the scheduler role: each workspace's per-channel job schedulers (weekly summaries,
 * digest periods) are made to match what it stores, one workspace after another. Never fatal:
 * the schedulers already in Redis keep firing, and the next start checks again.
 */
export async function reassertSchedules(d: Deployment, logger: Logger): Promise<void> {
  const withSchedules = d.features.filter((f) => f.reassertSchedules);
  if (withSchedules.length === 0) return;
  const reassertAll = async (ws: AppWorkspace) => {
    for (const f of withSchedules) {
      try {
        const r = await f.reassertSchedules?.(ws);
        if (r && (r.restored.length > 0 || r.removed.length > 0))
          ws.logger.info(r, `${f.name} schedules re-asserted`);
      } catch (err) {
        ws.logger.warn({ err }, `could not check ${f.name} schedules`);
      }
    }
  };
  try {
    await d.workspaces.each(reassertAll, (id, err) =>
      logger.warn({ err, workspace: id }, "could not check this workspace's schedules"),
    );
  } catch (err) {
    // The list of workspaces could not be read (Redis down at start).
    logger.warn({ err }, "could not check the workspaces' schedules");
  }
}
