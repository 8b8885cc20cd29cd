/**
 * Slack errors in the classes the queue acts on:
 * - permanent: the destination or the credentials are broken; the same call keeps failing
 *   until a person acts (pause that delivery and tell someone);
 * - rate_limited: wait `retryAfterMs`, then retry;
 * - transient: Slack or the network had a moment; retry with backoff;
 * - unknown: anything else; reported so this list grows. `retryable` says whether repeating
 *   the same call can help (false for request errors we recognise, such as invalid_blocks).
 */

export type SlackErrorKind = "permanent" | "rate_limited" | "transient" | "unknown";

export interface SlackErrorClassification {
  kind: SlackErrorKind;
  /** Slack's error code (`channel_not_found`), or ours: `ratelimited`, `http_503`, `timeout`, `request_error`, `unexpected_error`. */
  code: string;
  /** Only for rate_limited: how long to wait. */
  retryAfterMs?: number;
  /** Only for rate_limited: not Slack's answer but our own hold of the method after one (method-hold.ts). */
  held?: true;
  retryable: boolean;
}

/** Destination- or credential-level failures (per the Web API's documented error codes). */
const PERMANENT = new Set([
  // the channel
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "restricted_action",
  "restricted_action_read_only_channel",
  "restricted_action_thread_only_channel",
  "restricted_action_non_threadable_channel",
  "ekm_access_denied",
  // the token, the installation or the workspace
  "not_authed",
  "invalid_auth",
  "token_revoked",
  "token_expired",
  "account_inactive",
  "missing_scope",
  "no_permission",
  "access_denied",
  "not_allowed_token_type",
  "team_access_not_granted",
  "enterprise_is_restricted",
  "accesslimited",
]);

const RATE_LIMITED = new Set(["ratelimited", "rate_limited"]);

const TRANSIENT = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/**
 * Request-level errors: this call is wrong (usually a bug in us, or a message or view that
 * no longer exists), so repeating it cannot help, but the destination is fine.
 */
const REQUEST_ERRORS = new Set([
  "invalid_blocks",
  "invalid_blocks_format",
  "msg_blocks_too_long",
  "msg_too_long",
  "no_text",
  "too_many_attachments",
  "invalid_arguments",
  "invalid_arg_name",
  "invalid_array_arg",
  "invalid_charset",
  "invalid_form_data",
  "invalid_post_type",
  "missing_post_type",
  "invalid_json",
  "json_not_object",
  "message_not_found",
  "cant_update_message",
  "cant_delete_message",
  "edit_window_closed",
  "not_found",
  "hash_conflict",
  "user_not_found",
  "user_not_in_channel",
  "invalid_trigger_id",
  "expired_trigger_id",
  "exchanged_trigger_id",
  "view_too_large",
  "duplicate_external_id",
  "file_not_found",
  "unknown_method",
  "method_deprecated",
  "deprecated_endpoint",
]);

/** One plain sentence per code, for people (Slack replies, ops alerts, `status`). */
export const SLACK_ERROR_SENTENCES: Readonly<Record<string, string>> = {
  channel_not_found:
    "Slack cannot find that channel: it was deleted, or it is private and the app was never invited. Invite the app with /invite @Insight Relay, or unsubscribe it.",
  not_in_channel:
    "The app is not in that channel: invite it with /invite @Insight Relay, then resume the subscription.",
  is_archived: "That channel is archived: unarchive it, or subscribe another channel.",
  restricted_action:
    "A workspace setting stops the app from posting in that channel: a workspace admin can allow it, or subscribe another channel.",
  restricted_action_read_only_channel:
    "That channel is read-only for apps: let apps post there, or subscribe another channel.",
  restricted_action_thread_only_channel:
    "That channel only accepts replies in threads: subscribe another channel.",
  restricted_action_non_threadable_channel: "That channel does not allow threads: subscribe another channel.",
  ekm_access_denied:
    "Workspace administrators have suspended posting in that channel (Enterprise Key Management): ask them to lift it.",
  not_authed: "No Slack token was sent: set SLACK_BOT_TOKEN.",
  invalid_auth: "Slack does not accept the bot token: check SLACK_BOT_TOKEN.",
  token_revoked:
    "The bot token was revoked (the app was probably removed): reinstall the app and update SLACK_BOT_TOKEN.",
  token_expired: "The bot token has expired: reinstall the app and update SLACK_BOT_TOKEN.",
  account_inactive:
    "The app's Slack account is inactive (the app was removed or the workspace closed): reinstall the app.",
  missing_scope: "The app lacks a permission this needs: add the scope in the app settings and reinstall it.",
  no_permission: "The app has no permission to do that in this workspace.",
  access_denied: "Slack denied access to that resource.",
  not_allowed_token_type: "That needs another kind of token than the bot token.",
  team_access_not_granted: "The app has not been granted access to that workspace: an admin must add it.",
  enterprise_is_restricted: "The Enterprise Grid organisation does not allow that.",
  accesslimited: "Slack limits this call from the app's network: check the workspace's IP restrictions.",
  ratelimited: "Slack is rate-limiting the app; it will try again shortly.",
  rate_limited: "Slack is rate-limiting the app; it will try again shortly.",
  internal_error: "Slack had a temporary problem; the app will try again.",
  fatal_error: "Slack had a temporary problem; the app will try again.",
  service_unavailable: "Slack is temporarily unavailable; the app will try again.",
  request_timeout: "Slack took too long to answer; the app will try again.",
  timeout: "Slack took too long to answer; the app will try again.",
  request_error: "The app could not reach Slack; it will try again.",
  invalid_blocks: "Slack rejected the message layout; this is a bug in Insight Relay, please report it.",
  invalid_blocks_format:
    "Slack rejected the message layout; this is a bug in Insight Relay, please report it.",
  msg_blocks_too_long:
    "The message was too long for Slack; this is a bug in Insight Relay, please report it.",
  msg_too_long: "The message text was too long for Slack; this is a bug in Insight Relay, please report it.",
  no_text: "The message was empty.",
  message_not_found: "The Slack message to change no longer exists.",
  cant_update_message: "The app may not edit that message.",
  edit_window_closed: "That message can no longer be edited.",
  not_found: "That Slack view no longer exists.",
  hash_conflict: "Someone changed that view at the same time; try again.",
  user_not_found: "Slack cannot find that user.",
  user_not_in_channel: "That person is not in the channel.",
  invalid_trigger_id: "That button or command expired; please try again.",
  expired_trigger_id: "That button or command expired; please try again.",
  exchanged_trigger_id: "That button or command was already used; please try again.",
  view_too_large: "The view was too large for Slack; this is a bug in Insight Relay, please report it.",
  file_not_found: "The uploaded file was not found by Slack.",
  unknown_method: "Slack does not know that API method.",
};

/** Whether the code means "the destination or the credentials are broken; tell someone". */
export function isPermanentSlackError(code: string): boolean {
  return PERMANENT.has(code);
}

/** One sentence a person can act on; never includes tokens or request bodies. */
export function describeSlackError(code: string): string {
  const known = SLACK_ERROR_SENTENCES[code];
  if (known) return known;
  if (/^http_5\d\d$/.test(code)) return "Slack had a temporary problem; the app will try again.";
  if (/^http_\d{3}$/.test(code)) return `Slack answered with HTTP status ${code.slice(5)}.`;
  return `Slack answered "${code}".`;
}

export function classifyCode(code: string, retryAfterMs?: number): SlackErrorClassification {
  if (RATE_LIMITED.has(code)) {
    // Slack posts about one message a second per channel: wait at least that without a hint.
    return { kind: "rate_limited", code, retryAfterMs: retryAfterMs ?? 1000, retryable: true };
  }
  if (PERMANENT.has(code)) return { kind: "permanent", code, retryable: false };
  if (TRANSIENT.has(code)) return { kind: "transient", code, retryable: true };
  return { kind: "unknown", code, retryable: !REQUEST_ERRORS.has(code) };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null;

function retryAfterFromHeaders(headers: unknown): number | undefined {
  if (!isObj(headers)) return undefined;
  const v = headers["retry-after"];
  const n = typeof v === "string" ? Number.parseInt(v, 10) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}

function classifyTransport(original: unknown): SlackErrorClassification {
  const name = isObj(original) && typeof original.name === "string" ? original.name : "";
  const timedOut = name === "TimeoutError" || name === "AbortError";
  return { kind: "transient", code: timedOut ? "timeout" : "request_error", retryable: true };
}

/**
 * Classifies anything a Slack call can throw. Matches @slack/web-api errors by their `code`
 * (not `instanceof`), so errors from another copy of the package (Bolt's) classify too.
 */
export function classifySlackError(err: unknown): SlackErrorClassification {
  if (err instanceof SlackCallError) return err.classification;
  if (!isObj(err)) return { kind: "unknown", code: "unexpected_error", retryable: true };
  switch (err.code) {
    case "slack_webapi_platform_error": {
      const data = isObj(err.data) ? err.data : {};
      const code = typeof data.error === "string" ? data.error : "unknown_platform_error";
      const meta = isObj(data.response_metadata) ? data.response_metadata : {};
      const retryAfter = typeof meta.retryAfter === "number" ? meta.retryAfter * 1000 : undefined;
      return classifyCode(code, retryAfter);
    }
    case "slack_webapi_rate_limited_error": {
      const seconds = typeof err.retryAfter === "number" ? err.retryAfter : undefined;
      return classifyCode("ratelimited", seconds === undefined ? undefined : seconds * 1000);
    }
    case "slack_webapi_http_error": {
      const status = typeof err.statusCode === "number" ? err.statusCode : 0;
      if (status === 429) return classifyCode("ratelimited", retryAfterFromHeaders(err.headers));
      const code = `http_${status}`;
      if (status >= 500 || status === 408) return { kind: "transient", code, retryable: true };
      return { kind: "unknown", code, retryable: false };
    }
    case "slack_webapi_request_error":
      return classifyTransport(err.original);
  }
  // A 429 without a usable Retry-After surfaces from the WebClient as a plain Error.
  if (
    typeof err.message === "string" &&
    err.message.startsWith("Retry header did not contain a valid timeout")
  ) {
    return classifyCode("ratelimited");
  }
  if (err.name === "TimeoutError" || err.name === "AbortError") return classifyTransport(err);
  return { kind: "unknown", code: "unexpected_error", retryable: true };
}

/**
 * A failed Slack call. The message names the method and the error code, never the token or
 * the request body, so it is safe to log and to show to operators.
 */
export class SlackCallError extends Error {
  override readonly name = "SlackCallError";
  readonly code: string;
  constructor(
    readonly method: string,
    readonly classification: SlackErrorClassification,
    cause?: unknown,
  ) {
    super(`Slack ${method} failed: ${classification.code}`, cause === undefined ? undefined : { cause });
    this.code = classification.code;
  }
  /** The sentence for people (see SLACK_ERROR_SENTENCES). */
  get description(): string {
    return describeSlackError(this.code);
  }
}

export const isSlackCallError = (e: unknown): e is SlackCallError => e instanceof SlackCallError;
