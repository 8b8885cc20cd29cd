// bench:steady's idle rows: apps started and left alone (nothing sent), their CPU a second and
// their Redis's, beside a bare redis-server with no client over the same window (the floor),
// and the Redis commands a second the app sends doing nothing.
import type { RunningApp } from "./steady-apps.js";
import { nextChannel, startFollowing, type AppTarget, type SteadyContext } from "./steady-context.js";
import { openWindow, type WindowFigures } from "./steady-window.js";

export interface IdleFigures {
  target: string;
  window: WindowFigures;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Leaves running apps alone for `seconds` after `settleSeconds` (start-up's own work: compiling,
 * the first scheduler ticks), all over the same window, and measures each.
 */
export async function measureIdle(
  ctx: SteadyContext,
  apps: RunningApp[],
  o: { seconds: number; settleSeconds: number; label?: (app: RunningApp) => string },
): Promise<IdleFigures[]> {
  ctx.log(
    `idle: ${apps.map((a) => a.name).join(", ")}: settling ${o.settleSeconds} s, then ${o.seconds} s alone`,
  );
  await sleep(o.settleSeconds * 1000);
  const windows = await Promise.all(
    apps.map((a) =>
      openWindow({ appPid: a.pid, redisPid: a.redis.pid, redis: a.redis.client, floorPid: ctx.floor.pid }),
    ),
  );
  await sleep(o.seconds * 1000);
  const figures: IdleFigures[] = [];
  for (const [i, a] of apps.entries()) {
    const w = windows[i];
    if (w) figures.push({ target: o.label?.(a) ?? a.name, window: await w.close(0) });
  }
  return figures;
}

/** The idle row: every target started (one channel following the group each), then left alone together. */
export async function idleRow(
  ctx: SteadyContext,
  targets: AppTarget[],
  o: { seconds: number; settleSeconds: number },
): Promise<IdleFigures[]> {
  const apps: RunningApp[] = [];
  try {
    for (const t of targets) apps.push(await startFollowing(ctx, t, nextChannel()));
    return await measureIdle(ctx, apps, o);
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
  }
}
