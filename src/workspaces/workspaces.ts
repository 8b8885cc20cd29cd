/**
 * Where a deployment's workspaces come from: an installation store (many workspaces) or the
 * env tokens (one). `load` builds one workspace's context over its own stores and clients.
 */
export interface WorkspaceSource<W> {
  /** The workspace's context; undefined when it is not installed (or was removed). */
  load(id: string): Promise<W | undefined>;
  /** Every installed workspace's id. */
  list(): Promise<string[]>;
  /** Releases what a context holds (its HTTP pools) when it leaves the cache. */
  dispose?(w: W): void;
}

/**
 * Workspaces a deployment-wide pass (a reconcile tick, an alerts evaluation, the schedules'
 * check at start) acts for at once: one whose Insight service is slow does not make every
 * other wait, and the service is not asked by every workspace at the same moment.
 */
const EACH_AT_ONCE = 4;

/**
 * The deployment's workspaces, each resolved explicitly by whoever has its id (a Slack request's
 * team, a webhook's secret, a job's `workspaceId`): `get(id)` builds its context once and keeps
 * it (the most recently used `max` of them; a forgotten or evicted one is built again on next
 * use), the way Bolt keeps one client per token. Work for every workspace iterates them with
 * `each`, in lanes.
 */
export class Workspaces<W> {
  private readonly cache = new Map<string, Promise<W | undefined>>();
  private readonly forgetters: ((id: string) => void)[] = [];
  private readonly max: number;

  constructor(
    private readonly source: WorkspaceSource<W>,
    o: { max?: number } = {},
  ) {
    this.max = Math.max(1, o.max ?? 1_000);
  }

  get(id: string): Promise<W | undefined> {
    const hit = this.cache.get(id);
    if (hit) {
      // Most recently used last: eviction takes the first.
      this.cache.delete(id);
      this.cache.set(id, hit);
      return hit;
    }
    const loading = this.source.load(id);
    // A failed or empty load is not remembered: the next request tries again.
    loading.then(
      (w) => w ?? this.drop(id, loading),
      () => this.drop(id, loading),
    );
    this.cache.set(id, loading);
    if (this.cache.size > this.max) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.evict(oldest);
    }
    return loading;
  }

  list(): Promise<string[]> {
    return this.source.list();
  }

  /** After connect, disconnect, rotation or uninstall: built again on next use. */
  forget(id: string): void {
    for (const f of this.forgetters) f(id);
    this.evict(id);
  }

  /** Called with the id of each workspace forgotten (caches keyed otherwise drop it too). */
  onForget(f: (id: string) => void): void {
    this.forgetters.push(f);
  }

  /**
   * Runs `fn` for each installed workspace (or those of `ids`), those `wanted` says, a few at a
   * time: one that fails (or is gone meanwhile) is told to `failed` and does not stop or hold
   * back the others. A pass keeps nothing: what it built for itself it releases.
   */
  async each(
    fn: (w: W, id: string) => Promise<unknown>,
    failed: (id: string, err: unknown) => void,
    wanted: (w: W) => boolean = () => true,
    among?: readonly string[],
  ): Promise<{ workspaces: number; failed: number; skipped: number }> {
    const ids = among ?? (await this.list());
    let next = 0;
    let ran = 0;
    let failures = 0;
    let skipped = 0;
    const lane = async (): Promise<void> => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
        try {
          const done = await this.visit(id, async (w) => {
            if (!wanted(w)) return false;
            await fn(w, id);
            return true;
          });
          if (done) ran++;
          else if (done === false) skipped++;
        } catch (err) {
          failures++;
          failed(id, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(EACH_AT_ONCE, ids.length) }, lane));
    return { workspaces: ran, failed: failures, skipped };
  }

  /**
   * Runs `fn` with the workspace without keeping it: the context a request or job keeps is used
   * as it is, any other is built for this call and released after it. So a pass over 1,000 quiet
   * workspaces (a tick, the schedules' check at start, the admin page) leaves no 1,000 contexts
   * (clients, pools, bound features) for the garbage collector to walk: with them kept, an idle
   * process measured 33-43 ms of CPU a second, 15-16 without. Undefined: not installed.
   */
  async visit<T>(id: string, fn: (w: W) => Promise<T>): Promise<T | undefined> {
    const kept = this.cache.get(id);
    if (kept) {
      const w = await kept;
      return w ? fn(w) : undefined;
    }
    const w = await this.source.load(id);
    if (!w) return undefined;
    try {
      return await fn(w);
    } finally {
      this.source.dispose?.(w);
    }
  }

  private drop(id: string, loading: Promise<W | undefined>): void {
    if (this.cache.get(id) === loading) this.cache.delete(id);
  }

  private evict(id: string): void {
    const hit = this.cache.get(id);
    this.cache.delete(id);
    void hit?.then((w) => (w ? this.source.dispose?.(w) : undefined)).catch(() => undefined);
  }
}
