import type { Producer, SlackJob } from "../jobs/job-types.js";
import type { Logger } from "../log.js";
import type { StateKeys } from "../store/keys.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { clearGate, OpsNotifier } from "../ops/ops-notifier.js";
import { renderKeyRejectedDm } from "./connect-blocks.js";
import type { ConnectionStore } from "./connection-store.js";

/** What telling a workspace's admins about its refused Insight key needs. */
export interface KeyRejectionDeps {
  workspaceId: string;
  /** The key this workspace's clients call with: only a 401 to the stored key is news. */
  apiKey: string;
  connections: Pick<ConnectionStore, "markKeyRejected" | "clearKeyRejected">;
  /** The workspace's admins (ADMIN_USER_IDS among its members, else Slack's admins and owners). */
  admins(workspaceId: string): Promise<string[]>;
  /** Queues a DM with the workspace's own token; `key` makes it idempotent. */
  dm(userId: string, text: string, key: string): Promise<void>;
  logger: Logger;
  now?: () => number;
}

export interface KeyRejection {
  /** The service answered 401: marks the connection and DMs each admin, once per incident. */
  rejected(): Promise<void>;
  /**
   * A call with the key succeeded: the mark goes (Home stops showing the banner), per
   * `clearGate`; `force`: a check someone asked for (`status`) clears at once.
   */
  accepted(o?: { force?: boolean }): Promise<void>;
}

export function keyRejection(deps: KeyRejectionDeps): KeyRejection {
  const ws = deps.workspaceId;
  const now = deps.now ?? Date.now;
  // One HDEL per workspace per CLEAR_EVERY_MS at most, unless this process saw the 401.
  const cleared = clearGate(now);
  return {
    async rejected() {
      cleared.refused();
      try {
        // Set-if-absent in Redis: of every process seeing 401s, one opens the incident.
        const since = await deps.connections.markKeyRejected(ws, deps.apiKey);
        // Again once marked: a success between the two used the first up on nothing.
        cleared.refused();
        if (!since) return;
        const admins = await deps.admins(ws);
        const text = renderKeyRejectedDm(since);
        for (const user of admins) await deps.dm(user, text, `key-rejected-${since}`);
        deps.logger.warn(
          { workspace: ws, admins: admins.length },
          "the Insight Service refused this workspace's API key: its admins were told (Home and a DM)",
        );
      } catch (err) {
        // The caller is answering for the failed call itself; the next 401 tries again.
        deps.logger.warn(
          { err, workspace: ws },
          "could not tell the workspace's admins about the refused key",
        );
      }
    },
    async accepted(o = {}) {
      if (!cleared.due() && !o.force) return;
      const wasMarked = await deps.connections.clearKeyRejected(ws).catch(() => {
        cleared.refused(); // not cleared after all: the next success tries again
        return false;
      });
      if (wasMarked) {
        deps.logger.info({ workspace: ws }, "the Insight Service accepts this workspace's API key again");
      }
    },
  };
}

/**
 * A workspace's operational alerts: recorded and logged like the deployment's, never posted to
 * the deployment's ops channel (another customer's); a refused Insight key goes to the
 * workspace's own admins instead.
 */
export class WorkspaceOpsNotifier extends OpsNotifier {
  constructor(
    redis: Redis,
    keys: StateKeys,
    slackQueue: () => Producer<SlackJob>,
    logger: Logger,
    private readonly key: KeyRejection,
  ) {
    super(redis, keys, slackQueue, undefined, logger);
  }

  override async insightUnauthorized(): Promise<void> {
    await super.insightUnauthorized();
    await this.key.rejected();
  }

  override async insightAuthorized(o: { force?: boolean } = {}): Promise<void> {
    await super.insightAuthorized(o);
    await this.key.accepted(o);
  }
}
