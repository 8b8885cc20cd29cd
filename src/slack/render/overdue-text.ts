import type { OverdueQueue } from "../../domain/overdue.js";
import { durationText, plural } from "./wording.js";

/** A queue's BullMQ name as an operator reads it: `{slack-out-3}` is "slack-out, shard 3". */
export function queueLabel(name: string): string {
  const bare = name.replace(/^\{(.*)\}$/, "$1");
  const sharded = /^(.+)-(\d+)$/.exec(bare);
  return sharded ? `${sharded[1] ?? bare}, shard ${sharded[2] ?? ""}` : bare;
}

/** One overdue queue in a sentence, naming the queue and shard (readiness, the ops alert, status). */
export function overdueText(o: OverdueQueue): string {
  const what =
    o.state === "delayed"
      ? o.jobs === 1
        ? `1 job delayed past its time by ${durationText(o.forMs)}`
        : `${plural(o.jobs, "job")} delayed past their time, the oldest by ${durationText(o.forMs)}`
      : `${plural(o.jobs, "job")} waiting, and no worker has taken the next one for ${durationText(o.forMs)}`;
  return `${what} (queue ${queueLabel(o.queue)})`;
}
