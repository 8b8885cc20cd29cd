import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { InstallURLOptions, StateStore } from "@slack/bolt";
import type { RedisClient as Redis } from "../../store/redis.js";

/** How long an "Add to Slack" click stays good: as long as Bolt's state cookie. */
export const STATE_TTL_SECONDS = 600;

export type StateProblem = "bad_state" | "expired_state";

/** A state Slack brought back that we did not issue, already used, or too old. */
export class StateError extends Error {
  // Bolt hands errors with this code to the failure page.
  readonly code = "slack_oauth_invalid_state";
  constructor(readonly problem: StateProblem) {
    super(problem === "expired_state" ? "the install link has expired" : "the install state is not valid");
    this.name = "StateError";
  }
}

/**
 * OAuth `state`: `<nonce>.<issued-at ms>.<HMAC-SHA256>` signed with SLACK_STATE_SECRET, and
 * single-use: the nonce is kept in Redis until it is used or expires (Bolt's own store is
 * signed but could be replayed within its lifetime). Install options are not carried: the
 * app installs with one fixed set of scopes.
 */
export class RedisStateStore implements StateStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (nonce: string) => string,
    private readonly secret: string,
    private readonly ttlSeconds = STATE_TTL_SECONDS,
  ) {}

  private sign(body: string): string {
    return createHmac("sha256", this.secret).update(body).digest("base64url");
  }

  async generateStateParam(_options: InstallURLOptions, now: Date): Promise<string> {
    const nonce = randomBytes(16).toString("base64url");
    const body = `${nonce}.${now.getTime()}`;
    await this.redis.set(this.keyOf(nonce), "1", "EX", this.ttlSeconds);
    return `${body}.${this.sign(body)}`;
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const [nonce, issued, sig, ...rest] = state.split(".");
    if (!nonce || !issued || !sig || rest.length > 0) throw new StateError("bad_state");
    const want = Buffer.from(this.sign(`${nonce}.${issued}`));
    const got = Buffer.from(sig);
    if (got.length !== want.length || !timingSafeEqual(got, want)) throw new StateError("bad_state");
    // Signed by us: an old one is expired (not forged), whether or not Redis still has it.
    if (now.getTime() - Number(issued) > this.ttlSeconds * 1000) throw new StateError("expired_state");
    // Single use: only the first redirect with this state gets past here.
    if ((await this.redis.del(this.keyOf(nonce))) !== 1) throw new StateError("bad_state");
    return { scopes: [] };
  }
}
