// The dispatch table and the one outbound policy, with a dummy of the Slack jobs' deps: no Redis,
// no BullMQ (the same paths run for real in test/relay/*).
import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import type { SlackJob } from "../../../src/jobs/job-types.js";
import type { SlackAttempt } from "../../../src/jobs/slack-jobs/attempt.js";
import type { SlackJobDeps } from "../../../src/jobs/slack-jobs/deps.js";
import { digestHandler } from "../../../src/jobs/slack-jobs/digest.js";
import { processSlackJob } from "../../../src/jobs/slack-jobs/process-slack-job.js";
import type { WaitInPlace } from "../../../src/jobs/slack-jobs/wait-in-place.js";
import { silentLogger } from "../../../src/log.js";
import { classifyCode, SlackCallError } from "../../../src/slack/errors.js";
import type { SlackSender } from "../../../src/slack/outbound/slack-sender.js";
import type { MessageRef } from "../../../src/store/message-refs.js";
import { FakeOps, FakeSubscriptions } from "../../helpers/fakes.js";
import { digest } from "../../helpers/personal-builders.js";

const NOW = Date.parse("2026-11-27T10:00:00Z");
type DigestJob = Extract<SlackJob, { kind: "digest" }>;

function world() {
  const posts: { channel: string; text: string; threadTs?: string | undefined }[] = [];
  const reserved: string[] = [];
  const refs = new Map<string, MessageRef>();
  let failWith: string | undefined;
  const sender: SlackSender = {
    post: async (a) => {
      if (failWith) throw new SlackCallError("chat.postMessage", classifyCode(failWith));
      posts.push({ channel: a.channel, text: a.text, threadTs: a.threadTs });
      return `1764237600.${String(posts.length).padStart(6, "0")}`;
    },
    update: async () => undefined,
    findPosted: async () => undefined,
    findDigest: async () => undefined,
    upload: async () => ({ fileId: "F1" }),
    openDm: async (userId) => `D-${userId}`,
    permalink: async (channel, ts) => `https://example.slack.com/archives/${channel}/p${ts.replace(".", "")}`,
  };
  const subscriptions = new FakeSubscriptions();
  const ops = new FakeOps();
  const deps = {
    redis: {} as SlackJobDeps["redis"],
    keys: { lock: (n: string) => `lock:${n}` },
    refs: {
      get: async (c: string, t: string) => refs.get(`${c} ${t}`),
      postingSince: async () => undefined,
      setIfNewer: async () => true,
      markPosting: async () => undefined,
      unmarkPosting: async () => undefined,
      setCard: async () => undefined,
    },
    triage: {
      get: async () => ({ followers: [] }),
      followersOf: async () => [],
      noteCard: async () => undefined,
    },
    replies: { peek: async () => ({ replies: [], taken: 0 }), drop: async () => undefined },
    slackQueue: () => ({ add: async () => undefined }),
    counts: async () => undefined,
    throttle: {
      reserve: async (channel: string) => {
        reserved.push(channel);
        return NOW;
      },
      pushBack: async () => undefined,
    },
    subscriptions,
    ops,
    sender,
    logger: silentLogger,
    now: () => NOW,
  } as unknown as SlackJobDeps;
  const attempt = (data: SlackJob): SlackAttempt => ({
    id: "job-1",
    data,
    updateData: async () => undefined,
    deferUntil: async () => {
      throw new Error("deferred");
    },
  });
  return {
    deps,
    posts,
    reserved,
    refs,
    subscriptions,
    ops,
    attempt,
    fail: (code: string) => (failWith = code),
  };
}

describe("processSlackJob: one handler per kind behind one table", () => {
  it("a notice is posted in its channel's turn", async () => {
    const w = world();
    const out = await processSlackJob(
      w.attempt({ kind: "notice", channelId: "C0OPS", text: "Hello ops" }),
      w.deps,
    );
    expect(out).toBe("sent");
    expect(w.reserved).toEqual(["C0OPS"]);
    expect(w.posts).toEqual([{ channel: "C0OPS", text: "Hello ops", threadTs: undefined }]);
  });

  it("a DM opens the user's DM and links the card", async () => {
    const w = world();
    await processSlackJob(
      w.attempt({
        kind: "dm",
        channelId: "U0BOB",
        userId: "U0BOB",
        text: "Assigned to you",
        card: { channel: "C1", ts: "1.000002" },
      }),
      w.deps,
    );
    expect(w.posts).toEqual([
      {
        channel: "D-U0BOB",
        text: "Assigned to you\n<https://example.slack.com/archives/C1/p1000002|Open the card>",
        threadTs: undefined,
      },
    ]);
  });

  it("a card edit with no card to edit is stale and takes no turn", async () => {
    const w = world();
    const out = await processSlackJob(
      w.attempt({ kind: "card", channelId: "C1", threadId: "t1", reason: "triage" }),
      w.deps,
    );
    expect(out).toBe("stale");
    expect(w.reserved).toEqual([]);
  });

  it("the cards due at one time: an edit asked for each card whose counts moved, under its window's id; no turn taken", async () => {
    const w = world();
    const card = (threadId: string, messageCount: number) => ({
      ts: "1764237600.000100",
      enrichedAtMs: NOW - 60_000,
      hasSentiment: true,
      groupId: "group-support-01",
      card: { digest: digest({ threadId, messageCount }), change: [], noLongerMatches: false },
    });
    w.refs.set("C1 moved", card("moved", 3));
    w.refs.set("C1 same", card("same", 5));
    const listed: Record<string, number> = { moved: 4, same: 5, gone: 9 };
    const adds: { name: string; data: SlackJob; jobId: string | undefined }[] = [];
    const steps: string[] = [];
    const deps = {
      ...w.deps,
      counts: async (_groupId: string, threadId: string) => ({ messageCount: listed[threadId] }),
      countsDue: {
        take: async (channel: string, at: number) => {
          steps.push(`take ${channel} ${at}`);
          return [
            { threadId: "moved", window: 7 },
            { threadId: "same", window: 7 },
            { threadId: "gone", window: 7 },
          ];
        },
        done: async (channel: string, at: number) => void steps.push(`done ${channel} ${at}`),
      },
      slackQueue: () => ({
        add: async (name: string, data: SlackJob, opts?: { jobId?: string }) => {
          steps.push(`add ${opts?.jobId ?? ""}`);
          adds.push({ name, data, jobId: opts?.jobId });
          return undefined;
        },
        addBulk: async () => [],
      }),
    } as unknown as SlackJobDeps;
    const out = await processSlackJob(w.attempt({ kind: "counts", channelId: "C1", at: NOW }), deps);
    expect(out).toBe("asked");
    expect(adds).toEqual([
      {
        name: "card",
        data: { kind: "card", channelId: "C1", threadId: "moved", reason: "counts" },
        jobId: "counts|C1|moved|7",
      },
    ]);
    // Done only once the edit is asked for: a crash in between takes the same cards again.
    expect(steps).toEqual([`take C1 ${NOW}`, "add counts|C1|moved|7", `done C1 ${NOW}`]);
    expect(w.reserved).toEqual([]);
    expect(w.posts).toEqual([]);
  });

  it("replies with nothing waiting are stale and take no turn", async () => {
    const w = world();
    w.refs.set("C1 t1", { ts: "1.000001", enrichedAtMs: 1, hasSentiment: true, groupId: "g1" });
    const out = await processSlackJob(
      w.attempt({ kind: "replies", channelId: "C1", threadId: "t1" }),
      w.deps,
    );
    expect(out).toBe("stale");
    expect(w.reserved).toEqual([]);
  });

  it("a digest of a channel that follows nothing any more is stale", async () => {
    const w = world();
    const out = await processSlackJob(
      w.attempt({
        kind: "digest",
        channelId: "C1",
        enrichedAtMs: NOW,
        digest: { threadId: "t1", groupId: "g1", groupName: "G", title: "T", summary: "S" } as never,
      }),
      w.deps,
    );
    expect(out).toBe("stale");
  });

  it("Slack refusing a notice for good fails the job for good and raises no alert", async () => {
    const w = world();
    w.fail("is_archived");
    const err = await processSlackJob(
      w.attempt({ kind: "notice", channelId: "C0OPS", text: "x" }),
      w.deps,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(w.ops.incidents.size).toBe(0);
  });

  it("a request Slack would refuse again (invalid_blocks) fails for good without an alert", async () => {
    const w = world();
    w.fail("invalid_blocks");
    const err = await processSlackJob(
      w.attempt({ kind: "notice", channelId: "C0OPS", text: "x" }),
      w.deps,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toBe("Slack refused the message: invalid_blocks");
  });

  it("a watch DM for someone whose DM of the thread is being sent comes back later, without taking a turn", async () => {
    const w = world();
    const deps = {
      ...w.deps,
      watchDms: { ...w.deps.watchDms, get: async () => ({ kind: "claimed" as const, atMs: NOW }) },
    };
    const job = w.attempt({
      kind: "watch-dm",
      channelId: "U0MAYA",
      userId: "U0MAYA",
      watchId: "1",
      digest: digest(),
    });
    await expect(processSlackJob(job, deps)).rejects.toThrow("deferred");
    expect(w.reserved).toEqual([]);
  });

  it("a watch DM for someone who has one of the thread edits it in their DM's turn: never a second DM", async () => {
    const w = world();
    const updates: { channel: string; ts: string; text: string }[] = [];
    const shown = digest({ enrichedAt: "2026-03-13T12:00:00.000Z", sentiment: "negative" });
    const deps = {
      ...w.deps,
      sender: {
        ...w.deps.sender,
        update: async (a: { channel: string; ts: string; text: string }) => {
          updates.push({ channel: a.channel, ts: a.ts, text: a.text });
        },
      },
      watches: { get: async () => undefined, list: async () => [] },
      watchDms: {
        ...w.deps.watchDms,
        get: async () => ({
          kind: "card" as const,
          channel: "D0MAYA",
          ts: "1.000009",
          watchId: "1",
          digest: shown,
          sentAtMs: 1,
        }),
        set: async () => undefined,
      },
    } as SlackJobDeps;
    const out = await processSlackJob(
      w.attempt({
        kind: "watch-dm",
        channelId: "U0MAYA",
        userId: "U0MAYA",
        watchId: "1",
        digest: digest({ enrichedAt: "2026-03-13T13:00:00.000Z", sentiment: "positive" }),
      }),
      deps,
    );
    expect(out).toBe("updated");
    expect(w.reserved).toEqual(["U0MAYA"]);
    expect(w.posts).toEqual([]);
    expect(updates).toEqual([
      { channel: "D0MAYA", ts: "1.000009", text: "Your watch: Refund failed after the upgrade" },
    ]);
  });

  it("an edit while chat.update is held waits before its turn, its lock and its reads; a first post is not held", async () => {
    const w = world();
    const heldUntil = (method: string) => (method === "chat.update" ? NOW + 1_000 : undefined);
    const deps = { ...w.deps, sender: { ...w.deps.sender, heldUntil } } as SlackJobDeps;
    w.refs.set("C1 t1", {
      ts: "1764237600.000100",
      enrichedAtMs: NOW - 60_000,
      hasSentiment: true,
      groupId: "g1",
      card: { digest: digest({ threadId: "t1" }), change: [], noLongerMatches: false },
    });
    const written: SlackJob[] = [];
    const waits: number[] = [];
    const edit = {
      ...w.attempt({ kind: "card", channelId: "C1", threadId: "t1", reason: "triage" }),
      updateData: async (d: SlackJob) => void written.push(d),
      deferUntil: async (untilMs: number) => {
        waits.push(untilMs);
        throw new Error("deferred");
      },
    };
    // The dummy's Redis has no commands: a posting lock taken would fail otherwise than "deferred".
    await expect(processSlackJob(edit, deps)).rejects.toThrow("deferred");
    expect(waits).toEqual([NOW + 1_000]);
    expect(w.reserved).toEqual([]);
    expect(written).toEqual([]);

    // A digest names the edit only when it found a card: a first post is limited per channel, never held.
    await w.subscriptions.put({
      channelId: "C1",
      groupId: "g1",
      groupName: "Support",
      communityId: undefined,
      filters: {},
      createdBy: "U1",
      createdAt: "2026-11-27T09:00:00Z",
    });
    const digestOf = (threadId: string) =>
      w.attempt({
        kind: "digest",
        channelId: "C1",
        enrichedAtMs: NOW,
        digest: digest({ threadId, groupId: "g1" }),
      });
    const methodOf = async (threadId: string) => {
      const prepared = await digestHandler.prepare(digestOf(threadId) as SlackAttempt<DigestJob>, deps);
      return "send" in prepared ? (prepared.method ?? "none") : `done ${prepared.done}`;
    };
    expect(await methodOf("t1")).toBe("chat.update");
    expect(await methodOf("t-new")).toBe("none");
  });

  describe("a turn close enough is slept in place (wait-in-place.ts), not handed to the queue", () => {
    // The channel's next slot is a second away, as after a 429 (Retry-After: 1).
    const slotIn = (w: ReturnType<typeof world>, ms: number): SlackJobDeps => ({
      ...w.deps,
      throttle: {
        reserve: async (channel: string) => {
          w.reserved.push(channel);
          return NOW + ms;
        },
        pushBack: async () => undefined,
      },
    });
    const sleeper = (answer: boolean) => {
      const waits: number[] = [];
      const inPlace: WaitInPlace = {
        wait: async (untilMs) => {
          waits.push(untilMs);
          return answer;
        },
      };
      return { inPlace, waits };
    };
    const notice = { kind: "notice", channelId: "C0OPS", text: "Hello ops" } as const;

    it("slept: posted in the same attempt, and the job's data is not rewritten", async () => {
      const w = world();
      const written: SlackJob[] = [];
      const attempt = { ...w.attempt(notice), updateData: async (d: SlackJob) => void written.push(d) };
      const { inPlace, waits } = sleeper(true);
      const out = await processSlackJob(attempt, slotIn(w, 1_000), { inPlace });
      expect(out).toBe("sent");
      expect(waits).toEqual([NOW + 1_000]);
      expect(w.posts.map((p) => p.text)).toEqual(["Hello ops"]);
      expect(written).toEqual([]);
    });

    it("not slept (too far, or the budget is spent): the job keeps its slot and is deferred, as without", async () => {
      for (const o of [{ inPlace: sleeper(false).inPlace }, {}]) {
        const w = world();
        const written: SlackJob[] = [];
        const attempt = { ...w.attempt(notice), updateData: async (d: SlackJob) => void written.push(d) };
        await expect(processSlackJob(attempt, slotIn(w, 1_000), o)).rejects.toThrow("deferred");
        expect(w.posts).toEqual([]);
        expect(written).toEqual([{ ...notice, slotAt: NOW + 1_000 }]);
      }
    });

    it("a 429 slept in place: sent again in the same attempt once the channel is free", async () => {
      const w = world();
      let calls = 0;
      const deps: SlackJobDeps = {
        ...w.deps,
        sender: {
          ...w.deps.sender,
          post: async (a) => {
            if (++calls === 1) throw new SlackCallError("chat.postMessage", classifyCode("ratelimited"));
            return w.deps.sender.post(a);
          },
        },
      };
      const { inPlace, waits } = sleeper(true);
      const out = await processSlackJob(w.attempt(notice), deps, { inPlace });
      expect(out).toBe("sent");
      expect(calls).toBe(2);
      expect(waits).toHaveLength(1);
      expect(w.reserved).toEqual(["C0OPS", "C0OPS"]);
    });
  });
});
