import { workspaceIdOf } from "./workspace-id.js";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";
import type { RedisClient as Redis } from "../store/redis.js";
import type { InstallKeys } from "../store/keys.js";
import type { Sealer } from "./encryption.js";

/** What the app knows of an installed workspace without opening its tokens. */
export interface InstalledWorkspace {
  id: string;
  name: string;
  /** An org-wide install (Enterprise Grid): the id is the enterprise's. */
  enterprise: boolean;
  installedAt: string;
  installerId: string;
}

export class NoInstallationError extends Error {
  constructor() {
    super("this workspace has not installed the app (or uninstalled it)");
    this.name = "NoInstallationError";
  }
}

/**
 * Bolt's installation store on Redis. The installation (bot and user tokens, refresh tokens)
 * is sealed whole with AES-256-GCM (encryption.ts); the plain fields beside it are only what
 * listing and metrics need. Bolt writes back here when it refreshes a rotating token.
 */
export class RedisInstallationStore implements InstallationStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: InstallKeys,
    private readonly sealer: Sealer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async storeInstallation(installation: Installation): Promise<void> {
    const id = workspaceIdOf({
      isEnterpriseInstall: installation.isEnterpriseInstall,
      enterpriseId: installation.enterprise?.id,
      teamId: installation.team?.id,
    });
    if (!id) throw new Error("an installation without a team or enterprise id");
    const key = this.keys.installation(id);
    const name =
      (installation.isEnterpriseInstall ? installation.enterprise?.name : installation.team?.name) ?? id;
    await this.redis
      .multi()
      .hset(key, {
        sealed: this.sealer.seal(JSON.stringify(installation)),
        name,
        enterprise: installation.isEnterpriseInstall ? "1" : "0",
        installerId: installation.user.id,
        updatedAt: this.now().toISOString(),
      })
      .hsetnx(key, "installedAt", this.now().toISOString())
      .sadd(this.keys.workspaces, id)
      .exec();
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const id = workspaceIdOf(query);
    if (!id) throw new NoInstallationError();
    const sealed = await this.redis.hget(this.keys.installation(id), "sealed");
    if (!sealed) throw new NoInstallationError();
    const { plaintext, stale } = this.sealer.open(sealed);
    // Rotating ENCRYPTION_KEY: what an older key opened is sealed again with the current one.
    if (stale) await this.redis.hset(this.keys.installation(id), "sealed", this.sealer.seal(plaintext));
    return JSON.parse(plaintext) as Installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = workspaceIdOf(query);
    if (!id) return;
    await this.redis.multi().del(this.keys.installation(id)).srem(this.keys.workspaces, id).exec();
  }

  /** The workspace's bot token, for work that no Slack request brought (jobs, deliveries). */
  async botToken(workspaceId: string): Promise<string | undefined> {
    const sealed = await this.redis.hget(this.keys.installation(workspaceId), "sealed");
    if (!sealed) return undefined;
    const installation = JSON.parse(this.sealer.open(sealed).plaintext) as Installation;
    return installation.bot?.token;
  }

  async has(workspaceId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.installation(workspaceId))) === 1;
  }

  /** How many workspaces are installed: the set an installation joins in its own MULTI (one command). */
  async count(): Promise<number> {
    return this.redis.scard(this.keys.workspaces);
  }

  /** Every installed workspace, without tokens. */
  async list(): Promise<InstalledWorkspace[]> {
    const ids = await this.redis.smembers(this.keys.workspaces);
    const out: InstalledWorkspace[] = [];
    for (const id of ids.sort()) {
      const h = await this.redis.hgetall(this.keys.installation(id));
      if (!h.sealed) continue;
      out.push({
        id,
        name: h.name ?? id,
        enterprise: h.enterprise === "1",
        installedAt: h.installedAt ?? "",
        installerId: h.installerId ?? "",
      });
    }
    return out;
  }
}
