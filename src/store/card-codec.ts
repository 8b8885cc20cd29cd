import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { ThreadDigest } from "../domain/thread-digest.js";

/**
 * What a card shows, kept with its ref: a button press or a counts update re-renders the card
 * from it, and the next re-enrichment compares against it ("what changed").
 */
export interface StoredCard {
  digest: ThreadDigest;
  /** The "what changed" parts of the last re-enrichment edit (empty on a first post). */
  change: string[];
  /** The thread left this channel's filters; the card still follows it (rule 10). */
  noLongerMatches: boolean;
  /** When counts were last read from the listing (chatmessage-crud), if ever. */
  countsAtMs?: number;
}

/** Where a thread's digest lives in one channel, and which enrichment it shows. */
export interface MessageRef {
  ts: string;
  /** `payload.timestamp` of the enrichment shown, in ms since the epoch. */
  enrichedAtMs: number;
  /** Whether the shown digest already carries a sentiment (a later edit may add it). */
  hasSentiment: boolean;
  groupId: string;
  /** Absent on refs written before cards were kept, or when the stored JSON is unreadable. */
  card?: StoredCard;
}

/*
 * The compact form of a card ref (issue 38: at most 600 bytes of Redis per posted card). A ref
 * is one hash field whose value is
 *
 *   <version, base 36> ' ' <ts> ' ' <groupId> '\n' <card>
 *
 * The text head is what the scripts read (the version for the compare-and-set, the ts for
 * setCard); ts and groupId are escaped so that they never hold ' ' or '\n'. The card is a
 * positional JSON array (no field names; times as epoch ms; the thread id, group id and
 * enrichment time left out when they repeat the ref), raw-deflated when that is smaller: 'z'
 * then the deflated bytes, or 'j' then the JSON. An empty card part: no card kept.
 */

/** Escapes the characters that separate parts of a head or of an index entry. */
export const escapePart = (s: string): string =>
  s.replace(/[% \n,@]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
const unescapePart = (s: string): string => (s.includes("%") ? decodeURIComponent(s) : s);

/** An ISO time as epoch ms when it reads back identically, else the text itself. */
function packTime(s: string | undefined): number | string | null {
  if (s === undefined) return null;
  const ms = Date.parse(s);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === s ? ms : s;
}
const unpackTime = (v: unknown): string | undefined =>
  typeof v === "number" ? new Date(v).toISOString() : typeof v === "string" ? v : undefined;

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** Format of the card part, first byte. */
const RAW = 0x6a; // 'j'
const DEFLATED = 0x7a; // 'z'

/** Small windows: a card is a few hundred bytes, and a small stream is cheaper to set up. */
const DEFLATE = { windowBits: 10, memLevel: 2, level: 6 } as const;

export function encodeCard(
  card: StoredCard,
  threadId: string,
  groupId: string,
  enrichedAtMs: number,
): Buffer {
  const d = card.digest;
  const enrichedAt = new Date(enrichedAtMs).toISOString() === d.enrichedAt ? 0 : packTime(d.enrichedAt);
  const json = JSON.stringify([
    d.threadId === threadId ? 0 : d.threadId,
    d.groupId === groupId ? 0 : d.groupId,
    d.groupName,
    d.communityId,
    d.title,
    orNull(d.summary),
    orNull(d.sentiment),
    d.keywords,
    orNull(d.messageCount),
    orNull(d.participantCount),
    orNull(d.isQuestionLed),
    orNull(d.questionResponseStatus),
    packTime(d.firstMessageDate),
    packTime(d.lastMessageDate),
    enrichedAt,
    d.action === "updated" ? 1 : 0,
    card.change,
    card.noLongerMatches ? 1 : 0,
    orNull(card.countsAtMs),
  ]);
  const raw = Buffer.from(json, "utf8");
  const deflated = deflateRawSync(raw, DEFLATE);
  return deflated.length < raw.length
    ? Buffer.concat([Buffer.of(DEFLATED), deflated])
    : Buffer.concat([Buffer.of(RAW), raw]);
}

/** The card of a ref's card part; undefined when there is none or it cannot be read. */
export function decodeCard(
  bytes: Buffer,
  threadId: string,
  groupId: string,
  enrichedAtMs: number,
): StoredCard | undefined {
  if (bytes.length < 2) return undefined;
  try {
    const body = bytes.subarray(1);
    const json = (bytes[0] === DEFLATED ? inflateRawSync(body) : body).toString("utf8");
    const a = JSON.parse(json) as unknown[];
    if (!Array.isArray(a)) return undefined;
    const digest: ThreadDigest = {
      threadId: str(a[0]) ?? threadId,
      groupId: str(a[1]) ?? groupId,
      groupName: str(a[2]) ?? "",
      communityId: str(a[3]) ?? "",
      title: str(a[4]) ?? "",
      summary: str(a[5]),
      sentiment: str(a[6]),
      keywords: Array.isArray(a[7]) ? a[7].filter((k): k is string => typeof k === "string") : [],
      messageCount: num(a[8]),
      participantCount: num(a[9]),
      isQuestionLed: typeof a[10] === "boolean" ? a[10] : undefined,
      questionResponseStatus: str(a[11]),
      firstMessageDate: unpackTime(a[12]),
      lastMessageDate: unpackTime(a[13]),
      enrichedAt: a[14] === 0 ? new Date(enrichedAtMs).toISOString() : (unpackTime(a[14]) ?? ""),
      action: a[15] === 1 ? "updated" : "created",
    };
    const countsAtMs = num(a[18]);
    return {
      digest,
      change: Array.isArray(a[16]) ? a[16].filter((x): x is string => typeof x === "string") : [],
      noLongerMatches: a[17] === 1,
      ...(countsAtMs !== undefined ? { countsAtMs } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The head of a ref's value, without its version: what the scripts write after it. */
export const refHead = (ts: string, groupId: string): string => `${escapePart(ts)} ${escapePart(groupId)}`;

/** A ref read back from its value; undefined when the value is not one. */
export function decodeRef(value: Buffer, threadId: string): MessageRef | undefined {
  const nl = value.indexOf(0x0a);
  if (nl < 0) return undefined;
  const [v36 = "", ts = "", groupId = ""] = value.subarray(0, nl).toString("utf8").split(" ");
  const version = parseInt(v36, 36);
  if (!ts || Number.isNaN(version)) return undefined;
  const enrichedAtMs = Math.floor(version / 2);
  const gid = unescapePart(groupId);
  const card = decodeCard(value.subarray(nl + 1), threadId, gid, enrichedAtMs);
  return {
    ts: unescapePart(ts),
    enrichedAtMs,
    hasSentiment: version % 2 === 1,
    groupId: gid,
    ...(card ? { card } : {}),
  };
}

/**
 * A hash field for an id: the service's ids (24 hex digits) as their 12 bytes; any other id as
 * its UTF-8 text and a 0xFF byte (never in UTF-8), twice if that made 12 bytes, so the two forms
 * never meet.
 */
export function idField(id: string): Buffer {
  if (id.length === 24 && /^[0-9a-f]{24}$/.test(id)) return Buffer.from(id, "hex");
  const text = Buffer.from(id, "utf8");
  return Buffer.concat([text, text.length === 11 ? Buffer.of(0xff, 0xff) : Buffer.of(0xff)]);
}
