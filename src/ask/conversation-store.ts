import * as z from "zod";
import type { StateKeys } from "../store/keys.js";
import type { RedisClient } from "../store/redis.js";

/*
 * One conversation with the assistant, in Redis under the workspace's own keys (rule 12): the
 * assistant thread's Slack context (the channel the person was viewing), what the last question
 * set so that a follow-up keeps it (group, period), and whether the thread has its title.
 * One hash per thread (one key: no cross-slot command on a cluster), forgotten after a week idle.
 */

/** What Slack says about where an assistant thread was opened (assistant_thread.context). */
export interface AssistantContext {
  channelId?: string | undefined;
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
}

/** What a follow-up keeps: the groups the last question named, the words of its period. */
export interface AskMemory {
  groups?: { id: string; name: string }[];
  /** "since Monday": read again at the follow-up's time. */
  rangeWords?: string;
}

const contextSchema = z.object({
  channelId: z.string().optional(),
  teamId: z.string().optional(),
  enterpriseId: z.string().optional(),
});
const memorySchema = z.object({
  groups: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .max(20)
    .optional(),
  rangeWords: z.string().max(200).optional(),
});

const parse = <S extends z.ZodType>(schema: S, raw: string | null | undefined): z.infer<S> | undefined => {
  if (!raw) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
};

export const CONVERSATION_TTL_SECONDS = 7 * 24 * 3600;
/** Slack retries an event it thinks was not received within a few minutes. */
const TAKEN_TTL_SECONDS = 15 * 60;

export class ConversationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Pick<StateKeys, "askThread" | "askTaken">,
    private readonly ttlSeconds = CONVERSATION_TTL_SECONDS,
  ) {}

  async context(channelId: string, threadTs: string): Promise<AssistantContext | undefined> {
    return parse(contextSchema, await this.redis.hget(this.keys.askThread(channelId, threadTs), "context"));
  }

  async saveContext(channelId: string, threadTs: string, c: AssistantContext): Promise<void> {
    const clean = Object.fromEntries(Object.entries(c).filter(([, v]) => typeof v === "string" && v !== ""));
    await this.#set(channelId, threadTs, "context", JSON.stringify(clean));
  }

  async memory(channelId: string, threadTs: string): Promise<AskMemory | undefined> {
    return parse(memorySchema, await this.redis.hget(this.keys.askThread(channelId, threadTs), "memory"));
  }

  async remember(channelId: string, threadTs: string, m: AskMemory): Promise<void> {
    await this.#set(channelId, threadTs, "memory", JSON.stringify(m));
  }

  /** True the first time only: the thread gets its title from its first question. */
  async firstQuestion(channelId: string, threadTs: string): Promise<boolean> {
    const key = this.keys.askThread(channelId, threadTs);
    const res = await this.redis.multi().hsetnx(key, "titled", "1").expire(key, this.ttlSeconds).exec();
    return res?.[0]?.[1] === 1;
  }

  /** True the first time a message is seen: a retried event delivery is not answered twice. */
  async take(channelId: string, ts: string): Promise<boolean> {
    return (
      (await this.redis.set(this.keys.askTaken(channelId, ts), "1", "EX", TAKEN_TTL_SECONDS, "NX")) === "OK"
    );
  }

  async #set(channelId: string, threadTs: string, field: string, value: string): Promise<void> {
    const key = this.keys.askThread(channelId, threadTs);
    await this.redis.multi().hset(key, field, value).expire(key, this.ttlSeconds).exec();
  }
}
