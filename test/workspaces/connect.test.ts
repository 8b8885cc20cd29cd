import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { silentLogger } from "../../src/log.js";
import { connectionBlocks, submitConnect, type ConnectDeps } from "../../src/workspaces/connect-actions.js";
import { CONNECT_ACTIONS, CONNECT_FIELDS, renderConnectModal } from "../../src/workspaces/connect-blocks.js";
import { installKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { checkInsightKey } from "../../src/workspaces/check-key.js";
import { ConnectionStore } from "../../src/workspaces/connection-store.js";
import { Sealer } from "../../src/workspaces/encryption.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("Connect: the key is checked against the service, saved sealed, never shown again", () => {
  let emu: Emulator;
  let redis: Redis;
  const prefix = uniquePrefix("connect");
  let connections: ConnectionStore;
  const logged: unknown[] = [];
  const admins = new Set(["U0ADMIN"]);
  let deps: ConnectDeps;

  beforeAll(async () => {
    emu = await startEmulator({ seed: 3 });
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
    connections = new ConnectionStore(redis, installKeys(prefix), new Sealer(Buffer.alloc(32, 4)));
    const logger = {
      ...silentLogger,
      info: (o: unknown) => void logged.push(o),
      warn: (o: unknown) => void logged.push(o),
      error: (o: unknown) => void logged.push(o),
    } as unknown as typeof silentLogger;
    deps = {
      connections,
      checkKey: (apiKey, baseUrl) =>
        checkInsightKey({ apiKey, baseUrl, apiVersion: "v1", searchParam: "query", logger: silentLogger }),
      isAdmin: async (_ws, user) => admins.has(user),
      fixedBaseUrl: undefined,
      publicUrl: "https://relay.example.com",
      refreshHome: async () => undefined,
      logger,
    };
  });
  afterAll(async () => {
    await emu.close();
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it("shows Connect to admins only, and asks for the base URL only when the deployment does not fix it", async () => {
    const forAdmin = JSON.stringify(await connectionBlocks(deps, "T1", "U0ADMIN"));
    const forMember = JSON.stringify(await connectionBlocks(deps, "T1", "U0MEMBER"));
    expect(forAdmin).toContain(CONNECT_ACTIONS.open);
    expect(forMember).not.toContain(CONNECT_ACTIONS.open);
    expect(forMember).toContain("A workspace admin can connect it here");
    expect(JSON.stringify(renderConnectModal({ askBaseUrl: true }))).toContain(CONNECT_FIELDS.baseUrl.block);
    expect(JSON.stringify(renderConnectModal({ askBaseUrl: false }))).not.toContain(
      CONNECT_FIELDS.baseUrl.block,
    );
  });

  it("refuses a wrong key inline, saving nothing and never echoing it", async () => {
    const r = await submitConnect(deps, {
      workspaceId: "T1",
      userId: "U0ADMIN",
      apiKey: "wrong-key-abcdef",
      baseUrl: emu.baseUrl,
    });
    expect(r).toEqual({
      errors: {
        [CONNECT_FIELDS.apiKey.block]: "The Insight Service refused this key. Check it and paste it again.",
      },
    });
    expect(await connections.get("T1")).toBeUndefined();
    expect(JSON.stringify(logged)).not.toContain("wrong-key-abcdef");
  });

  it("refuses someone who is not an admin even if they reach the modal", async () => {
    const r = await submitConnect(deps, {
      workspaceId: "T1",
      userId: "U0MEMBER",
      apiKey: emu.apiKey,
      baseUrl: emu.baseUrl,
    });
    expect("errors" in r).toBe(true);
    expect(await connections.get("T1")).toBeUndefined();
  });

  it("saves a working key and shows the workspace's own webhook URL with the dashboard steps", async () => {
    const r = await submitConnect(deps, {
      workspaceId: "T1",
      userId: "U0ADMIN",
      apiKey: ` ${emu.apiKey} `,
      baseUrl: `${emu.baseUrl}/`,
    });
    if (!("view" in r)) throw new Error(JSON.stringify(r));
    const conn = await connections.get("T1");
    expect(conn?.apiKey).toBe(emu.apiKey);
    expect(conn?.baseUrl).toBe(emu.baseUrl);
    const shown = JSON.stringify(r.view);
    expect(shown).toContain(`https://relay.example.com/webhooks/insight/${conn?.webhookSecret}`);
    expect(shown).toContain("chatthread-crud");
    expect(shown).not.toContain(emu.apiKey);
    expect(JSON.stringify(logged)).not.toContain(emu.apiKey);
    expect(await connections.workspaceForSecret(conn?.webhookSecret ?? "")).toBe("T1");
    // The Home tab: the URL for admins, never the key; members see neither.
    const home = JSON.stringify(await connectionBlocks(deps, "T1", "U0ADMIN"));
    expect(home).toContain(conn?.webhookSecret);
    expect(home).toContain(CONNECT_ACTIONS.rotate);
    expect(home).toContain(CONNECT_ACTIONS.disconnect);
    // When it was connected, as a date in the reader's zone (fallback: the UTC date).
    const connectedOn = `<!date^${Math.floor(Date.parse(conn?.connectedAt ?? "") / 1000)}^{date_short}|${conn?.connectedAt.slice(0, 10)}>`;
    expect(home).toContain(`*Insight Service connected* by <@U0ADMIN> on ${connectedOn}.`);
    expect(home).not.toContain(emu.apiKey);
    expect(JSON.stringify(await connectionBlocks(deps, "T1", "U0MEMBER"))).not.toContain(conn?.webhookSecret);
  });

  it("says plainly when the service cannot be reached", async () => {
    const r = await checkInsightKey({
      apiKey: "k",
      baseUrl: "http://127.0.0.1:9",
      apiVersion: "v1",
      searchParam: "query",
      logger: silentLogger,
    });
    expect(r).toEqual({
      ok: false,
      problem: "The Insight Service did not answer in time. Please try again in a minute.",
    });
  });
});
