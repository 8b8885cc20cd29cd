// bench:steady's many idle workspaces: the app in installed (multi-workspace OAuth) mode with 1,
// 100 and 1,000 workspaces installed and connected, seeded in Redis as the tests seed them (an
// installation sealed with ENCRYPTION_KEY, a connection with its API key and webhook secret);
// 10 of them (the one, with 1) follow a group and receive a trickle of traffic, one delivery
// every TRICKLE_EVERY_MS in all, to each in turn (the same traffic whatever the count, so that
// what differs is the idle workspaces); the rest do nothing. Its CPU a second and its Redis's, and Redis
// commands a second, over the idle window.
import { join } from "node:path";
import type { Redis } from "ioredis";
import { RedisInstallationStore } from "../src/workspaces/installation-store.js";
import { ConnectionStore } from "../src/workspaces/connection-store.js";
import { Sealer } from "../src/workspaces/encryption.js";
import { installKeys, workspacePrefix } from "../src/store/keys.js";
import { teamInstall } from "../test/workspaces/fixtures.js";
import { follow, startApp } from "./steady-apps.js";
import type { AppTarget, SteadyContext } from "./steady-context.js";
import { measureIdle, type IdleFigures } from "./steady-idle.js";
import { SteadyTraffic } from "./steady-traffic.js";
import type { EmulatedGroup } from "../dev/emulator/types.js";

/** Workspaces that receive traffic (all of them when fewer). */
export const TRAFFICKED = 10;
/** One delivery this often, to the trafficked workspaces in turn (each its own mix). */
export const TRICKLE_EVERY_MS = 1_000;

const ENCRYPTION_KEY = "ab".repeat(32);
const OAUTH_ENV = {
  SLACK_CLIENT_ID: "111.222",
  SLACK_CLIENT_SECRET: "client-secret-0123456789",
  SLACK_STATE_SECRET: "state-secret-0123456789abcdef",
  ENCRYPTION_KEY,
  // Blank: each workspace brings its own token and key.
  SLACK_BOT_TOKEN: "",
  INSIGHT_API_KEY: "",
};

const workspaceId = (i: number) => `T0WS${String(i).padStart(5, "0")}`;

/** Installs and connects `n` workspaces; the first TRAFFICKED follow the group. Their webhook secrets. */
async function seedWorkspaces(
  ctx: SteadyContext,
  redis: Redis,
  prefix: string,
  n: number,
  group: EmulatedGroup,
): Promise<{ id: string; secret: string }[]> {
  const sealer = new Sealer(Buffer.from(ENCRYPTION_KEY, "hex"));
  const installs = new RedisInstallationStore(redis, installKeys(prefix), sealer);
  const connections = new ConnectionStore(redis, installKeys(prefix), sealer);
  const out: { id: string; secret: string }[] = [];
  for (let i = 0; i < n; i++) {
    const id = workspaceId(i);
    await installs.storeInstallation(teamInstall(id, `xoxb-bench-${id}`));
    const secret = await connections.connect(id, {
      apiKey: ctx.world.insightKey,
      baseUrl: ctx.world.insightUrl,
      by: "U0BENCH",
    });
    if (i < TRAFFICKED) {
      await follow(redis, workspacePrefix(prefix, id), {
        channel: `C0WS${String(i).padStart(5, "0")}`,
        groupId: group._id,
        groupName: group.name,
        communityId: group.community,
      });
      out.push({ id, secret });
    }
  }
  return out;
}

/** One delivery every TRICKLE_EVERY_MS, to each of the trafficked workspaces in turn. */
function trickle(
  ctx: SteadyContext,
  origin: string,
  to: { secret: string }[],
  group: EmulatedGroup,
): { stop(): number } {
  const traffic = to.map(() => new SteadyTraffic(ctx.emulator.store, group, ctx.mix));
  let i = 0;
  let sent = 0;
  const timer = setInterval(() => {
    const k = i++ % to.length;
    const body = traffic[k]?.next() ?? "";
    fetch(`${origin}/webhooks/insight/${to[k]?.secret ?? ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }).then(
      async (res) => {
        await res.arrayBuffer();
        sent += 1;
      },
      () => undefined,
    );
  }, TRICKLE_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      return sent;
    },
  };
}

export interface WorkspacesFigures extends IdleFigures {
  workspaces: number;
  deliveries: number;
}

/** One app (this checkout's) with `n` workspaces, each `n` of `counts`, in turn (profiled in `profileDir/<n>`). */
export async function workspacesRow(
  ctx: SteadyContext,
  t: AppTarget,
  o: { counts: number[]; seconds: number; settleSeconds: number; profileDir?: string | undefined },
): Promise<WorkspacesFigures[]> {
  const out: WorkspacesFigures[] = [];
  for (const n of o.counts) {
    let trafficked: { secret: string }[] = [];
    const group = ctx.freshGroup();
    ctx.log(`${t.name}: ${n} workspace(s) installed and connected`);
    const app = await startApp(ctx.world, {
      name: t.name,
      dir: t.dir,
      nodeFlags: t.nodeFlags,
      tuning: { channelGapMs: 0 },
      env: OAUTH_ENV,
      profileDir: o.profileDir ? join(o.profileDir, String(n)) : undefined,
      seed: async (redis, prefix) => {
        trafficked = await seedWorkspaces(ctx, redis, prefix, n, group);
      },
    });
    try {
      const flow = trickle(ctx, new URL(app.url).origin, trafficked, group);
      const [figures] = await measureIdle(ctx, [app], {
        seconds: o.seconds,
        settleSeconds: o.settleSeconds,
        label: () => `${t.name}, ${n} workspace(s)`,
      });
      const deliveries = flow.stop();
      if (figures) out.push({ ...figures, workspaces: n, deliveries });
    } finally {
      await app.stop();
    }
  }
  return out;
}
