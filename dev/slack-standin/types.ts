/** What the stand-in records; tests read these to see what the app sent to "Slack". */

export interface RecordedCall {
  method: string;
  /** Form or JSON body (plus query) as an object; JSON-string fields (blocks, view, files...) decoded; token removed. */
  args: Record<string, unknown>;
  /** The token the call carried (header or field). Kept for assertions; never printed or logged. */
  token?: string;
  /** How the arguments came: a JSON body, or form fields / query (the WebClient's way). */
  encoding: "json" | "form";
  /** The workspace the token belongs to (the default team unless the OAuth registry issued it). */
  team?: string;
  at: number;
  ok: boolean;
  /** Slack error code when `ok` is false (also set for injected 429s and 5xx). */
  error?: string;
  status: number;
}

export interface MessageVersion {
  text: string;
  blocks?: unknown[];
}

export interface StoredMessage {
  channel: string;
  ts: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** Message metadata ({event_type, event_payload}) as last set by post or update. */
  metadata?: unknown;
  /** How many times chat.update changed it. */
  updates: number;
  /** Every version, oldest first: history[0] is the original post, the last one is the current state. */
  history: MessageVersion[];
}

export interface RecordedResponse {
  id: string;
  /** Parsed JSON when the body is JSON, else the raw text. */
  body: unknown;
  at: number;
}

export interface UploadedFile {
  id: string;
  filename: string;
  /** The length declared in files.getUploadURLExternal. */
  length: number;
  /** Bytes received at the upload URL (empty until then). */
  bytes: Buffer;
  uploaded: boolean;
  completed: boolean;
  channel?: string;
  title?: string;
  initialComment?: string;
  threadTs?: string;
}

/**
 * `every`: the rule answers only every Nth call it matches (a share of the calls, e.g. 1 in 10),
 * `seen` counting them; without it, every matching call until `remaining` runs out.
 */
type Share = { every?: number; seen?: number };

export type FailureRule = Share &
  (
    | { kind: "rateLimit"; method: string; remaining: number; retryAfterSeconds: number; team?: string }
    | { kind: "error"; method: string; remaining: number; code: string; channel?: string }
    | { kind: "serverError"; method: string; remaining: number; status: number }
    | { kind: "hang"; method: string; remaining: number }
  );
