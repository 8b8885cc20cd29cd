import type { DeliveryJob } from "../jobs/queues.js";

/**
 * One entry of the intake list, as the receiver writes it: a delivery as received (its body
 * untouched, when it came, and its workspace in multi-workspace mode). The intake pump
 * classifies it, records its receipt (de-duplication, health, dead letters) and queues it.
 */
export interface ReceivedEntry {
  kind: "received";
  receivedAt: string;
  body: string;
  workspaceId?: string;
}

/**
 * An entry written by a receiver from before the pump classified deliveries (a rolling upgrade
 * leaves some in the intake): a delivery's job, its receipt recorded already.
 */
export interface RecordedEntry {
  kind: "recorded";
  job: DeliveryJob;
  workspaceId?: string;
}

export type IntakeEntry = ReceivedEntry | RecordedEntry;

// A line of its own before the body, so the acknowledgement neither parses nor re-serialises
// the body: "d1 <receivedAt> <workspaceId or ->\n<body>". ISO times and Slack team ids hold no
// space or newline.
const HEAD = /^d1 (\S+) (\S+)\n/;

/** The intake entry of a delivery received at `receivedAt` (an ISO time). */
export function formatIntakeEntry(receivedAt: string, body: string, workspaceId?: string): string {
  return `d1 ${receivedAt} ${workspaceId ?? "-"}\n${body}`;
}

/** An intake entry read back; undefined for anything the receiver did not write. */
export function parseIntakeEntry(raw: string): IntakeEntry | undefined {
  const head = HEAD.exec(raw);
  if (head) {
    const [line, receivedAt = "", workspace = "-"] = head;
    return {
      kind: "received",
      receivedAt,
      body: raw.slice(line.length),
      ...(workspace !== "-" ? { workspaceId: workspace } : {}),
    };
  }
  return parseRecorded(raw);
}

function parseRecorded(raw: string): RecordedEntry | undefined {
  try {
    const item = JSON.parse(raw) as { job?: Partial<DeliveryJob>; workspaceId?: unknown } | null;
    const job = item?.job;
    if (!job || typeof job.deliveryId !== "string" || typeof job.event?.webhookType !== "string")
      return undefined;
    if (item.workspaceId !== undefined && typeof item.workspaceId !== "string") return undefined;
    return {
      kind: "recorded",
      job: job as DeliveryJob,
      ...(item.workspaceId !== undefined ? { workspaceId: item.workspaceId } : {}),
    };
  } catch {
    return undefined;
  }
}
