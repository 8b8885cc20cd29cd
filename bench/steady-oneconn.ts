// bench:steady's one-connection row: the mix of a followed group sent on one connection as fast
// as it is acknowledged (autocannon, 1 connection) for `seconds`, to each app and to a bare
// Express route that reads the body and answers 200 (bench/targets/ceiling.ts `express`), in
// the same run. The apps are warmed up first the same way and left to drain before the row.
import { freePort } from "../dev/local-redis.js";
import { loadAutocannon, type AutocannonRequest, type AutocannonResult } from "./autocannon.js";
import { compiledTarget, cpuMs, spawnReady, startFlags, stopChild } from "./processes.js";
import { settle } from "./queues.js";
import { inTurn, nextChannel, startFollowing, type AppTarget, type SteadyContext } from "./steady-context.js";
import { per } from "./steady-figures.js";
import { SteadyTraffic } from "./steady-traffic.js";

export interface OneConnFigures {
  target: string;
  perSecond: number;
  ackP50: number;
  ackP99: number;
  non2xx: number;
  /** The app's CPU per delivery from the first send until it had processed them all. */
  cpuPerDelivery?: number;
  /** Seconds from the end of the load until every card was posted and the queues empty. */
  drainSeconds?: number;
  /** `web`: this checkout's web role alone (no worker anywhere: acknowledged, not processed). */
  kind: "app" | "express" | "web";
}

const EXPRESS = "express (ceiling)";

export async function oneConnRow(
  ctx: SteadyContext,
  targets: AppTarget[],
  o: { seconds: number; turn: number },
): Promise<OneConnFigures[]> {
  const autocannon = await loadAutocannon();
  // Express's deliveries are of a group of its own; each app's, of the group it follows.
  let traffic = new SteadyTraffic(ctx.emulator.store, ctx.freshGroup(), ctx.mix);
  const requests = (url: string) => [
    {
      setupRequest: (r: AutocannonRequest): AutocannonRequest => ({
        ...r,
        method: "POST",
        path: new URL(url).pathname,
        headers: { "content-type": "application/json" },
        body: traffic.next(),
      }),
    },
  ];
  const load = (url: string, seconds: number) =>
    autocannon({ url, connections: 1, duration: seconds, requests: requests(url) });
  /** What every line reports of its load: acknowledgements a second, their latency, the refusals. */
  const acked = (target: string, kind: OneConnFigures["kind"], r: AutocannonResult): OneConnFigures => ({
    target,
    kind,
    perSecond: r["2xx"] / o.seconds,
    ackP50: r.latency.p50,
    ackP99: r.latency.p99,
    non2xx: r.non2xx + r.errors,
  });
  const out: OneConnFigures[] = [];
  const all: (AppTarget | typeof EXPRESS)[] = [EXPRESS, ...targets];
  for (const t of inTurn(all, o.turn)) {
    // Where the acknowledgement's own cost ends: the web role of this checkout with no worker, its
    // deliveries left in the intake. Not the product's figure (nothing is processed), its floor.
    if (t === targets[0] && !t.dir) out.push(await webRoleAlone(t));
    if (t === EXPRESS) {
      const port = await freePort();
      // Compiled and with `npm start`'s flags, as the apps run: no loader in one and not the other.
      const child = await spawnReady([compiledTarget("bench/targets/ceiling.ts"), "express", String(port)], {
        env: process.env,
        tsx: false,
        nodeFlags: startFlags(),
      });
      try {
        const url = `http://127.0.0.1:${port}/webhooks/insight/${ctx.world.secret}`;
        ctx.log(`${EXPRESS}: one connection, warm-up ${ctx.oneConnWarmupSeconds} s, then ${o.seconds} s`);
        await load(url, ctx.oneConnWarmupSeconds);
        const r = await load(url, o.seconds);
        out.push(acked(EXPRESS, "express", r));
      } finally {
        await stopChild(child);
      }
      continue;
    }
    const channel = nextChannel();
    const app = await startFollowing(ctx, t, channel);
    traffic = new SteadyTraffic(ctx.emulator.store, app.group, ctx.mix);
    try {
      const before = traffic.counts.created;
      const posted = () => ctx.slack.messages(channel).length;
      ctx.log(`${t.name}: one connection, warm-up ${ctx.oneConnWarmupSeconds} s, then ${o.seconds} s`);
      await load(app.url, ctx.oneConnWarmupSeconds);
      const warm = traffic.counts.created - before;
      await settle(app.redis.client, app.prefix, () => posted() >= warm);
      const cpu0 = cpuMs(app.pid);
      const r = await load(app.url, o.seconds);
      const stopped = performance.now();
      const expected = traffic.counts.created - before;
      await settle(app.redis.client, app.prefix, () => posted() >= expected);
      out.push({
        ...acked(t.name, "app", r),
        cpuPerDelivery: per(cpuMs(app.pid) - cpu0, r["2xx"]),
        drainSeconds: (performance.now() - stopped) / 1000,
      });
    } finally {
      await app.stop();
    }
  }
  return out;

  async function webRoleAlone(t: AppTarget): Promise<OneConnFigures> {
    const app = await startFollowing(ctx, t, nextChannel(), { env: { ROLE: "web" } });
    traffic = new SteadyTraffic(ctx.emulator.store, app.group, ctx.mix);
    try {
      ctx.log(
        `${t.name}, web role alone: one connection, warm-up ${ctx.oneConnWarmupSeconds} s, then ${o.seconds} s`,
      );
      await load(app.url, ctx.oneConnWarmupSeconds);
      const cpu0 = cpuMs(app.pid);
      const r = await load(app.url, o.seconds);
      return {
        ...acked(`${t.name}, web role alone`, "web", r),
        cpuPerDelivery: per(cpuMs(app.pid) - cpu0, r["2xx"]),
      };
    } finally {
      await app.stop();
    }
  }
}
