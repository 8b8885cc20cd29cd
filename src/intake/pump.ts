import { randomUUID } from "node:crypto";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";
import { withTimeout, type RedisClient } from "../store/redis.js";
import { classifyDelivery } from "./classify-delivery.js";
import { parseIntakeEntry, type IntakeEntry, type ReceivedEntry } from "./entry.js";
import type { AddOptions, DeliveriesJob, DeliveryJob } from "../jobs/job-types.js";
import { batchJobs } from "./batch-jobs.js";
import { recordReceipts, type ReceiptBook } from "./receipts.js";

/** What the pump adds jobs through: the deliveries queue, or a workspace's stamped view of it. */
export interface IntakeProducer {
  add(name: string, data: DeliveriesJob, opts?: AddOptions): Promise<unknown>;
  addBulk(jobs: { name: string; data: DeliveriesJob; opts?: AddOptions }[]): Promise<unknown>;
  /** The shard a delivery goes to: a batch job holds one shard's deliveries. */
  shardIndexOf(data: DeliveriesJob): number;
}

/** A delivery on its way to becoming a job: its receipt recorded. */
interface Admitted {
  job: DeliveryJob;
  workspaceId?: string | undefined;
}

export interface IntakePumpDeps {
  /** Commands (a `shared`-kind connection): the lease and the batches. */
  redis: RedisClient;
  /** The pump's own connection for its blocking wait (a `blocking`-kind one: BLMOVE holds it). */
  blocking: RedisClient;
  keys: Pick<StateKeys, "intake" | "intakeMoving" | "intakeLease" | "intakeLeader">;
  deliveriesFor: (workspaceId: string | undefined) => IntakeProducer;
  /** Where the receipts of a workspace's deliveries are recorded (de-duplication, health, dead letters). */
  receiptsFor: (workspaceId: string | undefined) => ReceiptBook;
  /** Counts deliveries by outcome (queued, duplicate, dead_letter) and dead letters by reason. */
  metrics?: Pick<Metrics, "deliveries" | "deadLetters">;
  /**
   * Whether any channel of the workspace follows the group. A delivery of a group nobody
   * follows would be routed to no channel: it is dropped here instead of becoming a job.
   */
  followed?: (workspaceId: string | undefined, groupId: string) => Promise<boolean>;
  /** Counts the deliveries dropped because nobody follows their group (at least once each). */
  unfollowed?: Pick<Metrics["unfollowedDeliveries"], "inc">;
  logger: Logger;
  /** How long a pump leads without renewing (a killed one's successor waits this long). */
  leaseMs?: number;
  /** How long one blocking wait for the intake lasts, in seconds (default 30). */
  waitSeconds?: number;
  /** Deliveries moved per batch at most. */
  batch?: number;
  /** How long the pump lets deliveries gather after a wait ends, in ms (`DEFAULT_LINGER_MS`). */
  lingerMs?: number;
}

// One step of the leading pump: renew the lease (or take it: then the batch in flight may be
// another pump's, so nothing is dropped and all of it is queued again), drop the `done` oldest
// entries of the batch in flight (queued by the last step), fill it up to `n` from the intake's
// head when it is empty, and return it. Nil when another pump leads. A lease that lapsed while
// its leader waited through a quiet spell (it renews only when it steps) is the last leader's
// to take back; another pump takes it only when something waits to be moved (that leader is
// then gone, or it would have woken), so quiet spells do not pass the lead around. KEYS: lease,
// intake, batch in flight, last leader; ARGV: token, lease ms, done, n. The batch list stays in
// Redis until its jobs are queued: a pump killed between two steps leaves it to its successor,
// never loses it. A batch queued again (a failed add, a killed pump) is not filled up first: it
// makes the same jobs, with the same ids, so the adds that had gone through are no-ops. With
// n = 0 a step only drops what the last one queued.
const TAKE_BATCH = luaScript(`
local done = tonumber(ARGV[3])
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
elseif holder then
  return false
else
  local last = redis.call('GET', KEYS[4])
  if last and last ~= ARGV[1] and redis.call('LLEN', KEYS[2]) == 0 and redis.call('LLEN', KEYS[3]) == 0 then
    return false
  end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SET', KEYS[4], ARGV[1])
  done = 0
end
if done > 0 then redis.call('LTRIM', KEYS[3], done, -1) end
local n = tonumber(ARGV[4])
if n == 0 then return {} end
local have = redis.call('LLEN', KEYS[3])
if have > 0 then return redis.call('LRANGE', KEYS[3], 0, n - 1) end
while have < n do
  if not redis.call('LMOVE', KEYS[2], KEYS[3], 'LEFT', 'RIGHT') then break end
  have = have + 1
end
return redis.call('LRANGE', KEYS[3], 0, n - 1)
`);

/**
 * How long a leading pump's lease lasts without a step: a leader killed while moving
 * deliveries is succeeded within this long and a standing-by pump's next look (a pump that
 * stops gives it up at once; one killed while idle is succeeded at the first look that finds a
 * delivery waiting).
 */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * How long an idle pump's blocking wait lasts (seconds) when it is not told: a delivery wakes
 * it at once, so this only spaces its idle looks. create-pump.ts gives it the workers' idle look
 * (store/idle-look.ts: 30 s on one Redis, 10 s on a cluster).
 */
const DEFAULT_WAIT_SECONDS = 30;

/**
 * How long a woken pump lets deliveries gather before it takes them. A steady trickle (100 a
 * second, each on its own) then travels a step's worth (up to `batch`) at a time: the step's
 * scripts, BullMQ's add, fetch and completion of its jobs, and the routing's Redis commands,
 * sent together from deliveries processed at once, are paid once a step rather than once a
 * delivery; each write to a socket costs more CPU than the commands it carries (bench:steady:
 * 100 ms moved about 10 deliveries a step, 1 s moves 100). A burst that has filled a batch
 * after `BURST_LOOK_MS` is moved at once, step after step; a card already waits seconds for
 * its content (digest/first-post) and Slack's pace, so this second is not what a reader sees.
 */
export const DEFAULT_LINGER_MS = 1_000;

/** When a gathering looks whether a burst has filled a batch already (`IntakePump.gather`). */
export const BURST_LOOK_MS = 100;

/** How long close() waits for the step in flight, and then for giving up the lease. */
const CLOSE_WAIT_MS = 2_000;

// A pump that stops leaves the lease at once, so another process need not wait it out (nor
// for a delivery: it is no longer the last leader). KEYS: lease, last leader; ARGV: token.
const RELEASE = luaScript(`
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * Moves acknowledged deliveries from the intake list (webhooks/delivery-recorder.ts) into the
 * deliveries queue, oldest first, in batches: the receiver's acknowledgement is then one RPUSH,
 * and the rest is paid here, a batch at a time: each delivery is classified, its receipt
 * recorded (intake/receipts.ts: a repeat within 7 days goes no further, an invalid one
 * becomes a dead letter) and BullMQ's add made. One pump leads at a time across
 * every process (a lease, checked by every step that moves entries), so the queue receives
 * deliveries in the order they were acknowledged. A batch's deliveries of one shard go in one
 * job (one delivery alone: a job of its own), whose id is made of its first and last delivery
 * ids (one delivery: its id): a batch added again (its pump killed before its next step) is a
 * no-op while its jobs are kept.
 */
export class IntakePump {
  private readonly token = randomUUID();
  private readonly leaseMs: number;
  private readonly waitSeconds: number;
  private readonly batch: number;
  private readonly lingerMs: number;
  private stopped = false;
  private leading = false;
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly deps: IntakePumpDeps) {
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    // A wait may outlast the lease: a leader takes its own lapsed lease back at its next step.
    this.waitSeconds = deps.waitSeconds ?? DEFAULT_WAIT_SECONDS;
    this.batch = deps.batch ?? 100;
    this.lingerMs = deps.lingerMs ?? DEFAULT_LINGER_MS;
  }

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /**
   * Queues every delivery in the intake now (tests, and the loop), until it is empty or the
   * pump is closed: the number moved (queued, or dropped as nobody's), or undefined when
   * another pump leads.
   */
  async drain(): Promise<number | undefined> {
    return this.steps(false);
  }

  /**
   * Steps until the intake is empty or, with `untilShort`, until a step moves less than a full
   * batch: what comes in meanwhile waits for the next gathering (a trickle arriving while a
   * step ran would otherwise be chased one delivery a step, each paying a whole step), while a
   * backlog, whose steps are full, is moved without a pause.
   */
  private async steps(untilShort: boolean): Promise<number | undefined> {
    let done = 0;
    let moved = 0;
    for (;;) {
      const items = await this.take(done);
      this.noteLead(items !== undefined);
      if (!items) return undefined;
      // The last batch's entries are dropped by the step that found nothing more.
      if (items.length === 0 || this.stopped) return moved;
      await this.queue(items);
      done = items.length;
      moved += items.length;
      if (untilShort && items.length < this.batch) {
        // Drop the batch just queued (it must not look in flight while the pump waits).
        const left = await this.take(done, 0);
        this.noteLead(left !== undefined);
        return left ? moved : undefined;
      }
    }
  }

  private noteLead(leading: boolean): void {
    if (leading !== this.leading) {
      this.deps.logger.info({ leading }, leading ? "intake pump leads" : "intake pump stands by");
    }
    this.leading = leading;
  }

  private async take(done: number, n = this.batch): Promise<string[] | undefined> {
    const r = await TAKE_BATCH.run(
      this.deps.redis,
      4,
      this.deps.keys.intakeLease,
      this.deps.keys.intake,
      this.deps.keys.intakeMoving,
      this.deps.keys.intakeLeader,
      this.token,
      this.leaseMs,
      done,
      n,
    );
    return Array.isArray(r) ? r.map(String) : undefined;
  }

  /**
   * Adds a batch's jobs in order: contiguous entries of one workspace go in one job per shard.
   * Deliveries of groups nobody follows are left out (one EXISTS per group and workspace of the
   * batch, sent in one write): a job would only find no channel to route them to.
   */
  private async queue(items: string[]): Promise<void> {
    const entries = items.map((raw) => {
      const entry = parseIntakeEntry(raw);
      // Only the receiver writes here; an entry it did not write is dropped, not retried forever.
      if (!entry)
        this.deps.logger.error({ entry: raw.slice(0, 200) }, "intake entry is not a delivery; dropped");
      return entry;
    });
    const admitted = await this.admit(entries);
    const wanted = await this.wanted(admitted);
    const runs: { workspaceId: string | undefined; jobs: DeliveryJob[] }[] = [];
    let unfollowed = 0;
    admitted.forEach((item, i) => {
      if (!item) return;
      if (!wanted[i]) {
        unfollowed++;
        return;
      }
      const last = runs.at(-1);
      if (last && last.workspaceId === item.workspaceId) last.jobs.push(item.job);
      else runs.push({ workspaceId: item.workspaceId, jobs: [item.job] });
    });
    for (const run of runs) {
      const producer = this.deps.deliveriesFor(run.workspaceId);
      const jobs = batchJobs(run.jobs, (job) => producer.shardIndexOf(job));
      // One job alone goes by `add`: `addBulk` builds an ioredis pipeline, which copies every
      // script BullMQ defined on the connection.
      const [only] = jobs;
      if (jobs.length === 1 && only) await producer.add(only.name, only.data, only.opts);
      else await producer.addBulk(jobs);
    }
    // After the adds: a batch retried (an add failed, or its pump was killed) counts again only
    // if it got this far.
    if (unfollowed > 0) this.deps.unfollowed?.inc(unfollowed);
  }

  /**
   * Each entry's job, once its receipt is recorded (one script per workspace of the batch);
   * undefined for a repeat, a dead letter or an entry that is not a delivery.
   */
  private async admit(entries: (IntakeEntry | undefined)[]): Promise<(Admitted | undefined)[]> {
    const out: (Admitted | undefined)[] = entries.map((e) =>
      e?.kind === "recorded" ? { job: e.job, workspaceId: e.workspaceId } : undefined,
    );
    const byWorkspace = new Map<string | undefined, { at: number; entry: ReceivedEntry }[]>();
    entries.forEach((entry, at) => {
      if (entry?.kind !== "received") return;
      const same = byWorkspace.get(entry.workspaceId);
      if (same) same.push({ at, entry });
      else byWorkspace.set(entry.workspaceId, [{ at, entry }]);
    });
    for (const [workspaceId, received] of byWorkspace) {
      const receipts = received.map(({ entry }) => ({
        c: classifyDelivery(entry.body),
        receivedAt: entry.receivedAt,
        receipt: entry.receipt,
        body: entry.body,
      }));
      const goes = await recordReceipts(this.deps.redis, this.deps.receiptsFor(workspaceId), receipts, {
        logger: this.deps.logger,
        ...(this.deps.metrics ? { metrics: this.deps.metrics } : {}),
      });
      receipts.forEach(({ c, receivedAt }, i) => {
        const at = received[i]?.at;
        if (!goes[i] || c.kind !== "valid" || at === undefined) return;
        out[at] = {
          job: { deliveryId: c.deliveryId, receivedAt, event: c.event, deduplicated: true },
          workspaceId,
        };
      });
    }
    return out;
  }

  /** For each entry, whether it needs a job: false for a delivery of a group nobody follows. */
  private async wanted(items: (Admitted | undefined)[]): Promise<boolean[]> {
    const { followed } = this.deps;
    if (!followed) return items.map(() => true);
    const asked = new Map<string, Promise<boolean>>();
    return Promise.all(
      items.map((item) => {
        if (!item) return false;
        const { groupId } = item.job.event.payload;
        const key = JSON.stringify([item.workspaceId ?? null, groupId]);
        let answer = asked.get(key);
        if (!answer) asked.set(key, (answer = followed(item.workspaceId, groupId)));
        return answer;
      }),
    );
  }

  /**
   * Lets deliveries gather for `lingerMs` after a wait ends, unless a full batch is already
   * there after the first `BURST_LOOK_MS`: a burst is then moved as soon as it was before the
   * gathering, and only a trickle waits the whole gathering (one LLEN a gathering).
   */
  private async gather(): Promise<void> {
    const first = Math.min(BURST_LOOK_MS, this.lingerMs);
    await this.pause(first);
    if (this.stopped || this.lingerMs <= first) return;
    if ((await this.deps.redis.llen(this.deps.keys.intake)) >= this.batch) return;
    await this.pause(this.lingerMs - first);
  }

  /** Resolves after `ms`, or at once when the pump is closed. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stop.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stop.signal.addEventListener("abort", done, { once: true });
    });
  }

  private async loop(): Promise<void> {
    const { logger } = this.deps;
    let failures = 0;
    while (!this.stopped) {
      try {
        const moved = await this.steps(true);
        if (this.stopped) break;
        if (moved === undefined) {
          // Another pump leads: look again within the lease, should it have gone.
          failures = 0;
          await this.pause(this.leaseMs / 2 + Math.random() * (this.leaseMs / 4));
          continue;
        }
        // Wait for the next delivery without taking it (the list moves onto itself): only a
        // step that holds the lease moves entries, so a pump that lost it never queues out of turn.
        const woken = await this.deps.blocking.blmove(
          this.deps.keys.intake,
          this.deps.keys.intake,
          "LEFT",
          "LEFT",
          this.waitSeconds,
        );
        if (woken !== null && this.lingerMs > 0) await this.gather();
        if (failures > 0) logger.info({ failures }, "intake pump moving deliveries again");
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        failures++;
        // Redis away or the queue refusing: the batch stays in Redis; try again, less often.
        if (failures === 1 || failures % 30 === 0) {
          logger.warn({ err, failures }, "intake pump could not move deliveries; retrying");
        }
        await this.pause(Math.min(100 * 2 ** Math.min(failures, 5), 2_000));
      }
    }
  }

  /** Stops after the step in flight (not the whole intake) and gives up the lease. */
  async close(): Promise<void> {
    this.stopped = true;
    this.stop.abort();
    // A blocking wait would hold close() for up to `waitSeconds`: its connection is the pump's own.
    this.deps.blocking.disconnect();
    // Bounded: a step whose Redis does not answer (a cluster mid-failover) must not hold shutdown;
    // its batch stays in Redis, and the connection's owner disconnects it.
    const step = this.running?.catch(() => undefined);
    await withTimeout(Promise.resolve(step), CLOSE_WAIT_MS, "intake pump step").catch(() => undefined);
    await withTimeout(
      RELEASE.run(this.deps.redis, 2, this.deps.keys.intakeLease, this.deps.keys.intakeLeader, this.token),
      CLOSE_WAIT_MS,
      "Redis",
    ).catch(() => undefined);
  }
}
