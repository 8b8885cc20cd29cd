import type { AppServices } from "../../runtime.js";
import { gatherStatus } from "../../status/gather-status.js";
import type { Subscription } from "../../store/subscriptions.js";
import type { Subcommand } from "../commands/types.js";
import { mayChangeConfig } from "../interactions/authorize.js";
import { renderHome } from "../render/home.js";

/** The Home tab's live API check waits at most this long (the event is acked already). */
const HOME_PROBE_TIMEOUT_MS = 3_000;

export interface PublishHomeOptions {
  help: readonly Subcommand[];
  notice?: string;
  now?: Date;
}

/** Gathers the workspace's subscriptions, schedules and health, and publishes the user's Home tab. */
export async function publishHome(
  services: AppServices,
  userId: string,
  o: PublishHomeOptions,
): Promise<void> {
  const now = o.now ?? new Date();
  const [subs, status] = await Promise.all([
    services.subscriptions.all().catch((): Subscription[] => []),
    gatherStatus(services, { now, probeTimeoutMs: HOME_PROBE_TIMEOUT_MS }).catch(() => undefined),
  ]);
  const schedules = new Map<string, string>();
  if (services.describeSchedule) {
    const channels = [...new Set(subs.map((s) => s.channelId))];
    const lines = await Promise.all(
      channels.map(
        (c) => services.describeSchedule?.(c).catch(() => undefined) ?? Promise.resolve(undefined),
      ),
    );
    channels.forEach((c, i) => {
      const line = lines[i];
      if (line) schedules.set(c, line);
    });
  }
  const admins = services.config.adminUserIds;
  const view = renderHome({
    subscriptions: subs,
    schedules,
    status,
    help: o.help.map((c) => ({ usage: c.usage, summary: c.summary })),
    canChange: mayChangeConfig(userId, admins),
    adminsOnly: admins.length > 0,
    ...(o.notice !== undefined ? { notice: o.notice } : {}),
    now,
  });
  await services.slack.publishHome({ user_id: userId, view });
}
