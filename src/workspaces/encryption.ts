import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/*
 * AES-256-GCM for secrets at rest (Slack tokens, Insight API keys). A sealed value is
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): the key id says which key sealed
 * it, so ENCRYPTION_KEY can be rotated ("NEW,OLD": NEW seals, OLD still opens, and values
 * opened with OLD are sealed again with NEW by their store).
 */

const VERSION = "v1";

/** A short public name of a key (not the key): the first 8 hex digits of its SHA-256. */
export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

export class SealError extends Error {
  constructor(readonly code: "unknown_key" | "malformed" | "tampered") {
    // The message names the problem only: never the value or a key.
    super(`stored secret could not be opened (${code})`);
    this.name = "SealError";
  }
}

export interface Opened {
  plaintext: string;
  /** True when an older key opened it: the caller should seal it again. */
  stale: boolean;
}

export class Sealer {
  private readonly current: { id: string; key: Buffer };
  private readonly byId: Map<string, Buffer>;

  constructor(key: Buffer, previous: readonly Buffer[] = []) {
    if (key.length !== 32) throw new Error("an encryption key has 32 bytes");
    this.current = { id: keyId(key), key };
    this.byId = new Map([key, ...previous].map((k) => [keyId(k), k] as const));
  }

  /** The id of the key that seals, for status and doctor. */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, iv);
    // The version and key id are authenticated too, so they cannot be swapped.
    cipher.setAAD(Buffer.from(`${VERSION}.${this.current.id}`));
    const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ct].map((b) => b.toString("base64url"));
    return [VERSION, this.current.id, ...parts].join(".");
  }

  open(sealed: string): Opened {
    const [version, id, iv, tag, ct, ...rest] = sealed.split(".");
    if (version !== VERSION || !id || !iv || !tag || ct === undefined || rest.length > 0) {
      throw new SealError("malformed");
    }
    const key = this.byId.get(id);
    if (!key) throw new SealError("unknown_key");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(`${VERSION}.${id}`));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      const plaintext = Buffer.concat([
        decipher.update(Buffer.from(ct, "base64url")),
        decipher.final(),
      ]).toString("utf8");
      return { plaintext, stale: id !== this.current.id };
    } catch {
      throw new SealError("tampered");
    }
  }
}
