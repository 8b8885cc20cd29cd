import { createHash, randomBytes } from "node:crypto";
import type { RedisClient as Redis } from "../store/redis.js";
import type { InstallKeys } from "../store/keys.js";
import type { Sealer } from "./encryption.js";
import { luaScript } from "../store/lua-script.js";

/** A workspace's Insight connection, opened. The key and secret stay out of logs and messages. */
export interface Connection {
  apiKey: string;
  baseUrl: string;
  /** This workspace's webhook secret: its URL is `/webhooks/insight/<secret>`. */
  webhookSecret: string;
  connectedBy: string;
  connectedAt: string;
}

/** What the admin page and metrics read of a connection, without opening it. */
export interface ConnectionSummary {
  connected: boolean;
  /** When the service first refused the stored key, while it still does. */
  keyRejectedAt: string | undefined;
}

/*
 * Marks the connection's key as refused, once: only while the connection still holds the
 * sealed value the caller opened (a key replaced or disconnected meanwhile is not marked, and
 * a deleted connection is not brought back as a hash with only the mark).
 */
const MARK_REJECTED = luaScript(`
if redis.call("HGET", KEYS[1], "sealed") ~= ARGV[1] then return 0 end
return redis.call("HSETNX", KEYS[1], "keyRejectedAt", ARGV[2])`);

export const secretHash = (secret: string) => createHash("sha256").update(secret).digest("hex");
/** 32 random bytes in URL-safe text: far past WEBHOOK_SECRET's 16 characters. */
const newSecret = () => randomBytes(32).toString("base64url");

/**
 * Each workspace's Insight connection (API key and webhook secret sealed with ENCRYPTION_KEY)
 * and the index that routes a webhook delivery by its secret to its one workspace. The index
 * holds a SHA-256 of each secret, never the secret.
 */
export class ConnectionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: InstallKeys,
    private readonly sealer: Sealer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(workspaceId: string): Promise<Connection | undefined> {
    const sealed = await this.redis.hget(this.keys.connection(workspaceId), "sealed");
    if (!sealed) return undefined;
    const { plaintext, stale } = this.sealer.open(sealed);
    if (stale)
      await this.redis.hset(this.keys.connection(workspaceId), "sealed", this.sealer.seal(plaintext));
    return JSON.parse(plaintext) as Connection;
  }

  /**
   * The service answered 401 to `apiKey`: marks the connection "key rejected" when that is still
   * its key. Returns the mark's time when this call opened the incident (once across processes),
   * undefined when it was already open or the key is no longer the stored one.
   */
  async markKeyRejected(workspaceId: string, apiKey: string): Promise<string | undefined> {
    const sealed = await this.redis.hget(this.keys.connection(workspaceId), "sealed");
    if (!sealed) return undefined;
    const current = JSON.parse(this.sealer.open(sealed).plaintext) as Connection;
    if (current.apiKey !== apiKey) return undefined;
    const at = this.now().toISOString();
    const opened = await MARK_REJECTED.run(this.redis, 1, this.keys.connection(workspaceId), sealed, at);
    return opened === 1 ? at : undefined;
  }

  /** The key works again: clears the mark; true when there was one. */
  async clearKeyRejected(workspaceId: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.connection(workspaceId), "keyRejectedAt")) === 1;
  }

  async summary(workspaceId: string): Promise<ConnectionSummary> {
    const [sealed, keyRejectedAt] = await this.redis.hmget(
      this.keys.connection(workspaceId),
      "sealed",
      "keyRejectedAt",
    );
    return { connected: sealed !== null, keyRejectedAt: sealed ? (keyRejectedAt ?? undefined) : undefined };
  }

  async isConnected(workspaceId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.connection(workspaceId))) === 1;
  }

  /**
   * How many workspaces are connected: one webhook secret each in the secret index, written in
   * the same MULTI as the connection (one command, not one a workspace).
   */
  async count(): Promise<number> {
    return this.redis.hlen(this.keys.secretIndex);
  }

  /** Saves a checked key with a fresh webhook secret (the old secret stops working); returns the secret. */
  async connect(workspaceId: string, o: { apiKey: string; baseUrl: string; by: string }): Promise<string> {
    const secret = newSecret();
    await this.write(
      workspaceId,
      await this.get(workspaceId),
      {
        apiKey: o.apiKey,
        baseUrl: o.baseUrl,
        webhookSecret: secret,
        connectedBy: o.by,
        connectedAt: this.now().toISOString(),
      },
      { clearsRejection: true },
    );
    return secret;
  }

  /** A new webhook secret for a connected workspace; the old URL answers 404 from now on. */
  async rotateSecret(workspaceId: string): Promise<string | undefined> {
    const current = await this.get(workspaceId);
    if (!current) return undefined;
    const secret = newSecret();
    await this.write(workspaceId, current, { ...current, webhookSecret: secret }, { clearsRejection: false });
    return secret;
  }

  async disconnect(workspaceId: string): Promise<void> {
    const current = await this.get(workspaceId).catch(() => undefined);
    const m = this.redis.multi().del(this.keys.connection(workspaceId));
    if (current) m.hdel(this.keys.secretIndex, secretHash(current.webhookSecret));
    await m.exec();
  }

  /** The workspace whose webhook secret this is, if any. */
  async workspaceForSecret(presented: string): Promise<string | undefined> {
    return this.workspaceForSecretHash(secretHash(presented));
  }

  /** The same, from the secret's SHA-256 (hex): what deliveries kept while Redis was down are filed under. */
  async workspaceForSecretHash(hash: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.secretIndex, hash)) ?? undefined;
  }

  private async write(
    workspaceId: string,
    previous: Connection | undefined,
    next: Connection,
    o: { clearsRejection: boolean },
  ): Promise<void> {
    const m = this.redis.multi();
    if (previous) m.hdel(this.keys.secretIndex, secretHash(previous.webhookSecret));
    m.hset(this.keys.connection(workspaceId), {
      sealed: this.sealer.seal(JSON.stringify(next)),
      connectedAt: next.connectedAt,
    });
    // Connect saves a key the service just accepted: no "rejected" mark; a new secret keeps it.
    if (o.clearsRejection) m.hdel(this.keys.connection(workspaceId), "keyRejectedAt");
    m.hset(this.keys.secretIndex, secretHash(next.webhookSecret), workspaceId);
    await m.exec();
  }
}
