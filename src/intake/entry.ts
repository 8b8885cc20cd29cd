import { randomBytes } from "node:crypto";
import type { DeliveryJob } from "../jobs/job-types.js";

/**
 * One entry of the intake list, as the receiver writes it: a delivery as received (its body
 * untouched, when it came, and its workspace in multi-workspace mode). The intake pump
 * classifies it, records its receipt (de-duplication, health, dead letters) and queues it.
 */
export interface ReceivedEntry {
  kind: "received";
  receivedAt: string;
  /** This receipt's id: its spooled copy carries the same, a repeat of the delivery another. */
  receipt?: string;
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
// the body: "d1 <receivedAt> <workspaceId or -> <receipt or ->\n<body>". ISO times, Slack team
// ids and receipt ids hold no space or newline.
const HEAD = /^d1 (\S+) (\S+) (\S+)\n/;

// Receipt ids: this process's random prefix (process ids repeat across containers) and a count.
const PROCESS_TAG = randomBytes(5).toString("hex");
let receipts = 0;

/**
 * A new receipt's id. Two receipts of one delivery in the same millisecond (a sender that sends
 * twice at once) are still two receipts: the later one is a repeat, not a copy of the first.
 */
export function newReceiptId(): string {
  receipts++;
  return `${PROCESS_TAG}${receipts.toString(36)}`;
}

/** The intake entry of a delivery received at `receivedAt` (an ISO time). */
export function formatIntakeEntry(
  receivedAt: string,
  body: string,
  o: { workspaceId?: string | undefined; receipt?: string | undefined } = {},
): string {
  return `d1 ${receivedAt} ${o.workspaceId ?? "-"} ${o.receipt ?? "-"}\n${body}`;
}

/** When an entry's delivery was received (an ISO time), whichever receiver wrote it. */
export const receivedAtOf = (entry: IntakeEntry): string =>
  entry.kind === "received" ? entry.receivedAt : entry.job.receivedAt;

/** An intake entry read back; undefined for anything the receiver did not write. */
export function parseIntakeEntry(raw: string): IntakeEntry | undefined {
  const head = HEAD.exec(raw);
  if (head) {
    const [line, receivedAt = "", workspace = "-", receipt = "-"] = head;
    return {
      kind: "received",
      receivedAt,
      ...(receipt !== "-" ? { receipt } : {}),
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
