import type { RedisClient } from "./redis.js";
import type { StateKeys, WorkspaceHas, WorkspaceMark, WorkspacesWithKeys } from "./keys.js";

const KINDS: readonly WorkspaceHas[] = ["subscriptions", "alerts", "incidents"];

/** The key whose existence says a workspace has it (Redis drops an emptied set or hash). */
export const HAS_KEY: Record<WorkspaceHas, (k: StateKeys) => string> = {
  subscriptions: (k) => k.subscribedGroups,
  alerts: (k) => k.alertChannels,
  incidents: (k) => k.opsAlerts,
};

/**
 * A store that has just written its workspace's `has` key notes the workspace in the
 * deployment's set (after the write: see `WorkspacesWith.drop`). Nothing for the single workspace.
 */
export async function noteHas(
  redis: RedisClient,
  mark: WorkspaceMark | undefined,
  has: WorkspaceHas,
): Promise<void> {
  if (mark) await redis.sadd(mark.setOf(has), mark.workspaceId);
}

/**
 * Which of a deployment's many workspaces have any of some `WorkspaceHas`: the members of the
 * sets the stores note them in, each checked by one EXISTS of its key, so a tick reads nothing of
 * a workspace that never had anything (1,000 quiet workspaces: 3 commands, not 3,000). A member
 * whose key is gone (emptied, uninstalled) is dropped from the set. The first look builds the sets
 * from every installed workspace, once for the deployment (one from before the sets).
 */
export class WorkspacesWith {
  #built: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkspacesWithKeys,
    private readonly o: {
      /** A workspace's own state keys. */
      keysOf: (workspaceId: string) => StateKeys;
      /** Every installed workspace's id (the one build). */
      all: () => Promise<string[]>;
    },
  ) {}

  async having(has: readonly WorkspaceHas[]): Promise<string[]> {
    await this.#build();
    const found = new Set<string>();
    for (const h of has) {
      const ids = await this.redis.smembers(this.keys.setOf(h));
      const there = await this.#exist(ids, h);
      const gone: string[] = [];
      ids.forEach((id, i) => (there[i] ? found.add(id) : gone.push(id)));
      if (gone.length > 0) await this.#drop(h, gone);
    }
    return [...found].sort();
  }

  #exist(ids: readonly string[], h: WorkspaceHas): Promise<boolean[]> {
    // One EXISTS a key (a cluster refuses one over several slots); auto-pipelined into few writes.
    return Promise.all(ids.map(async (id) => (await this.redis.exists(HAS_KEY[h](this.o.keysOf(id)))) > 0));
  }

  /**
   * Removes, then looks again: a store that wrote its key meanwhile noted it after writing, so
   * either its note comes after this removal or its key is seen here and put back.
   */
  async #drop(h: WorkspaceHas, ids: string[]): Promise<void> {
    await this.redis.srem(this.keys.setOf(h), ...ids);
    const again = await this.#exist(ids, h);
    const back = ids.filter((_, i) => again[i]);
    if (back.length > 0) await this.redis.sadd(this.keys.setOf(h), ...back);
  }

  /** Once a process; a build that failed (Redis down) is tried again by the next look. */
  #build(): Promise<void> {
    this.#built ??= (async () => {
      if ((await this.redis.exists(this.keys.built)) > 0) return;
      const ids = await this.o.all();
      for (const h of KINDS) {
        const there = await this.#exist(ids, h);
        const having = ids.filter((_, i) => there[i]);
        if (having.length > 0) await this.redis.sadd(this.keys.setOf(h), ...having);
      }
      await this.redis.set(this.keys.built, new Date().toISOString());
    })().catch((err: unknown) => {
      this.#built = undefined;
      throw err;
    });
    return this.#built;
  }
}
