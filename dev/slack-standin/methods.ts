import { checkMessageBlocks, MAX_MESSAGE_TEXT_CHARS, parseBlocksArg } from "./block-limits.js";
import type { RecordedCall, StoredMessage, UploadedFile } from "./types.js";

/** The workspace the stand-in pretends to be. */
export const STANDIN_TEAM = {
  id: "T0STANDIN",
  name: "Insight Relay Test",
  domain: "insight-relay-test",
  url: "https://insight-relay-test.slack.com/",
} as const;
export const STANDIN_BOT = { userId: "U0BOT", botId: "B0BOT", user: "insight-relay" } as const;

export type Obj = Record<string, unknown>;
export type MethodResult = ({ ok: true } & Obj) | { ok: false; error: string; response_metadata?: Obj };

/** What the stand-in prints (with `print`) and appends to the blocks file. */
export interface StandInEvent {
  kind: "post" | "reply" | "update" | "ephemeral" | "file" | "home" | "modal";
  method: string;
  channel?: string;
  user?: string;
  ts?: string;
  threadTs?: string;
  text: string;
  blocks?: unknown[];
  filename?: string;
  bytes?: number;
}

export interface StandInState {
  messages: Map<string, StoredMessage>;
  views: Map<string, Obj>;
  published: Map<string, unknown>;
  opened: RecordedCall[];
  files: UploadedFile[];
}

export interface MethodContext {
  state: StandInState;
  origin: string;
  call: RecordedCall;
  nextTs(): string;
  nextId(prefix: string): string;
  emit(e: StandInEvent): void;
  /** conversations.join lifts injected not_in_channel failures for that channel, as joining would. */
  onJoin(channel: string): void;
  /** The workspace of the call's token (the default one unless the OAuth registry issued it). */
  team: { id: string; name: string; enterpriseId?: string; isEnterpriseInstall: boolean };
  /** users.info's `is_admin`: installers and named admins of a granted workspace. */
  isAdmin(user: string): boolean;
  /** users.list: the people of the call's workspace (installer, admins, members). */
  users(): { id: string; admin: boolean }[];
  /** users.info's `tz` of a user: "UTC" unless a test set another (SlackStandIn.timeZones). */
  timeZoneOf(user: string): string;
}

type Handler = (args: Obj, ctx: MethodContext) => MethodResult;

const fail = (error: string, messages?: string[]): MethodResult =>
  messages && messages.length ? { ok: false, error, response_metadata: { messages } } : { ok: false, error };

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const key = (channel: string, ts: string) => `${channel}\u0000${ts}`;

/** The stand-in's DM channel with a user: `D` + the user id without its first letter. */
export function dmChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}

function channelInfo(id: string) {
  return {
    id,
    name: `channel-${id.toLowerCase()}`,
    is_channel: !id.startsWith("D"),
    is_im: id.startsWith("D"),
    is_private: id.startsWith("G"),
    is_archived: false,
    is_member: true,
    created: 1700000000,
  };
}

/** Text and blocks checks shared by post, update and ephemeral, in the order Slack applies them. */
function messageContent(
  args: Obj,
  opts: { requireContent: boolean },
): { ok: true; text?: string; blocks?: unknown[] } | { ok: false; result: MethodResult } {
  const parsed = parseBlocksArg(args.blocks);
  if (!parsed.ok) return { ok: false, result: fail(parsed.error, parsed.messages) };
  const limits = checkMessageBlocks(parsed.blocks);
  if (!limits.ok) return { ok: false, result: fail(limits.error, limits.messages) };
  const text = typeof args.text === "string" ? args.text : undefined;
  if (text !== undefined && text.length > MAX_MESSAGE_TEXT_CHARS) {
    return { ok: false, result: fail("msg_too_long") };
  }
  const hasContent = !!text || (parsed.blocks?.length ?? 0) > 0 || args.attachments !== undefined;
  if (opts.requireContent && !hasContent) return { ok: false, result: fail("no_text") };
  return { ok: true, text, blocks: parsed.blocks };
}

function botMessage(m: StoredMessage, o: { withMetadata?: boolean } = {}): Obj {
  return {
    type: "message",
    user: STANDIN_BOT.userId,
    bot_id: STANDIN_BOT.botId,
    text: m.text,
    ts: m.ts,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(o.withMetadata && m.metadata !== undefined ? { metadata: m.metadata } : {}),
  };
}

const truthy = (v: unknown) => v === true || v === "true" || v === "1" || v === 1;

function readView(raw: unknown): Obj | undefined {
  return isObj(raw) ? raw : undefined;
}

function storeView(ctx: MethodContext, view: Obj, id = ctx.nextId("V")): Obj {
  const stored = {
    ...view,
    id,
    team_id: STANDIN_TEAM.id,
    app_id: "A0STANDIN",
    bot_id: STANDIN_BOT.botId,
    state: { values: {} },
    hash: `${Date.now()}.${ctx.nextId("h")}`,
  };
  ctx.state.views.set(id, stored);
  return stored;
}

function viewTitle(view: Obj): string {
  return isObj(view.title) && typeof view.title.text === "string" ? view.title.text : "";
}

const handlers: Record<string, Handler> = {
  "auth.test": (_args, ctx) => ({
    ok: true,
    url: STANDIN_TEAM.url,
    team: ctx.team.name,
    user: STANDIN_BOT.user,
    team_id: ctx.team.id,
    user_id: STANDIN_BOT.userId,
    bot_id: STANDIN_BOT.botId,
    ...(ctx.team.enterpriseId ? { enterprise_id: ctx.team.enterpriseId } : {}),
    is_enterprise_install: ctx.team.isEnterpriseInstall,
  }),

  "chat.postMessage": (args, ctx) => {
    const channel = str(args.channel);
    if (!channel) return fail("channel_not_found");
    const content = messageContent(args, { requireContent: true });
    if (!content.ok) return content.result;
    const threadTs = str(args.thread_ts);
    const msg: StoredMessage = {
      channel,
      ts: ctx.nextTs(),
      text: content.text ?? "",
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(args.metadata !== undefined ? { metadata: args.metadata } : {}),
      updates: 0,
      history: [],
    };
    msg.history.push({ text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) });
    ctx.state.messages.set(key(channel, msg.ts), msg);
    ctx.emit({
      kind: threadTs ? "reply" : "post",
      method: "chat.postMessage",
      channel,
      ts: msg.ts,
      threadTs,
      text: msg.text,
      blocks: msg.blocks,
    });
    return { ok: true, channel, ts: msg.ts, message: botMessage(msg) };
  },

  "chat.update": (args, ctx) => {
    const channel = str(args.channel);
    const ts = str(args.ts);
    if (!channel) return fail("channel_not_found");
    if (!ts) return fail("message_not_found");
    const msg = ctx.state.messages.get(key(channel, ts));
    if (!msg) return fail("message_not_found");
    const content = messageContent(args, { requireContent: false });
    if (!content.ok) return content.result;
    // Like Slack: an omitted text or blocks argument keeps what the message had.
    if (content.text !== undefined) msg.text = content.text;
    if (content.blocks !== undefined) {
      if (content.blocks.length) msg.blocks = content.blocks;
      else delete msg.blocks;
    }
    if (args.metadata !== undefined) msg.metadata = args.metadata;
    msg.updates += 1;
    msg.history.push({ text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) });
    ctx.emit({ kind: "update", method: "chat.update", channel, ts, text: msg.text, blocks: msg.blocks });
    return { ok: true, channel, ts, text: msg.text, message: botMessage(msg) };
  },

  "chat.postEphemeral": (args, ctx) => {
    const channel = str(args.channel);
    const user = str(args.user);
    if (!channel) return fail("channel_not_found");
    if (!user) return fail("user_not_in_channel");
    const content = messageContent(args, { requireContent: true });
    if (!content.ok) return content.result;
    const ts = ctx.nextTs();
    ctx.emit({
      kind: "ephemeral",
      method: "chat.postEphemeral",
      channel,
      user,
      ts,
      text: content.text ?? "",
      blocks: content.blocks,
    });
    return { ok: true, message_ts: ts };
  },

  "chat.getPermalink": (args, ctx) => {
    const channel = str(args.channel);
    const ts = str(args.message_ts);
    if (!channel) return fail("channel_not_found");
    if (!ts || !ctx.state.messages.has(key(channel, ts))) return fail("message_not_found");
    return {
      ok: true,
      channel,
      permalink: `${STANDIN_TEAM.url}archives/${channel}/p${ts.replace(".", "")}`,
    };
  },

  "chat.delete": (args, ctx) => {
    const channel = str(args.channel);
    const ts = str(args.ts);
    if (!channel) return fail("channel_not_found");
    if (!ts || !ctx.state.messages.delete(key(channel, ts))) return fail("message_not_found");
    return { ok: true, channel, ts };
  },

  "conversations.info": (args) => {
    const channel = str(args.channel);
    if (!channel) return fail("channel_not_found");
    return { ok: true, channel: channelInfo(channel) };
  },

  // Top-level messages of a channel, newest first, with offset cursors like Slack's opaque ones.
  "conversations.history": (args, ctx) => {
    const channel = str(args.channel);
    if (!channel) return fail("channel_not_found");
    const oldest = Number(args.oldest ?? 0);
    const latest = args.latest === undefined ? Number.POSITIVE_INFINITY : Number(args.latest);
    const inclusive = truthy(args.inclusive);
    const limit = Math.min(Math.max(Number(args.limit ?? 100) || 100, 1), 999);
    const offset = str(args.cursor)
      ? Number(Buffer.from(String(args.cursor), "base64").toString("utf8")) || 0
      : 0;
    const all = [...ctx.state.messages.values()]
      .filter((m) => m.channel === channel && (!m.thread_ts || m.thread_ts === m.ts))
      .filter((m) => {
        const t = Number(m.ts);
        return (inclusive ? t >= oldest : t > oldest) && (inclusive ? t <= latest : t < latest);
      })
      .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
    const page = all.slice(offset, offset + limit);
    const hasMore = offset + limit < all.length;
    const withMetadata = truthy(args.include_all_metadata);
    return {
      ok: true,
      messages: page.map((m) => botMessage(m, { withMetadata })),
      has_more: hasMore,
      response_metadata: {
        next_cursor: hasMore ? Buffer.from(String(offset + limit)).toString("base64") : "",
      },
    };
  },

  // A DM with one user: Slack answers with the IM channel (`D…`); the same one every time.
  "conversations.open": (args) => {
    const users = str(args.users) ?? str(args.user);
    if (!users) return fail("users_list_not_supplied");
    const list = users.split(",").map((u) => u.trim());
    if (list.length !== 1 || !/^[UW][A-Z0-9]+$/.test(list[0] ?? "")) return fail("user_not_found");
    return { ok: true, channel: { ...channelInfo(dmChannelOf(list[0] ?? "")), user: list[0] } };
  },

  "conversations.join": (args, ctx) => {
    const channel = str(args.channel);
    if (!channel) return fail("channel_not_found");
    ctx.onJoin(channel);
    return { ok: true, channel: channelInfo(channel) };
  },

  "users.info": (args, ctx) => {
    const user = str(args.user);
    if (!user) return fail("user_not_found");
    const name = `user-${user.toLowerCase()}`;
    const tz = ctx.timeZoneOf(user);
    return {
      ok: true,
      user: {
        id: user,
        team_id: ctx.team.id,
        name,
        real_name: `User ${user}`,
        tz,
        tz_label: tz === "UTC" ? "Coordinated Universal Time" : tz,
        tz_offset: tz === "UTC" ? 0 : null,
        is_bot: false,
        is_admin: ctx.isAdmin(user),
        deleted: false,
        profile: { display_name: name, real_name: `User ${user}` },
      },
    };
  },

  "users.list": (args, ctx) => {
    // Paginated as Slack does: `limit` per page, an opaque `next_cursor`, "" on the last page.
    const limit = Math.min(Math.max(Number(args.limit ?? 0) || 100, 1), 1000);
    const cursor = str(args.cursor);
    const offset = cursor
      ? Number(
          Buffer.from(cursor, "base64")
            .toString("utf8")
            .replace(/^offset:/, ""),
        )
      : 0;
    if (!Number.isInteger(offset) || offset < 0) return fail("invalid_cursor");
    const person = (id: string, admin: boolean) => ({
      id,
      team_id: ctx.team.id,
      name: `user-${id.toLowerCase()}`,
      deleted: false,
      is_bot: false,
      is_admin: admin,
      is_owner: false,
      tz: "UTC",
    });
    const all = [
      ...ctx.users().map((u) => person(u.id, u.admin)),
      // The app's own bot user is a member too, as in Slack.
      { ...person(STANDIN_BOT.userId, false), is_bot: true, name: STANDIN_BOT.user },
    ];
    const page = all.slice(offset, offset + limit);
    const next =
      offset + limit < all.length ? Buffer.from(`offset:${offset + limit}`).toString("base64") : "";
    return { ok: true, members: page, cache_ts: 1700000000, response_metadata: { next_cursor: next } };
  },

  // The assistant surface (docs.slack.dev/reference/methods/assistant.threads.*): recorded as
  // calls; the arguments are checked as Slack documents them.
  "assistant.threads.setStatus": (args) => {
    if (!str(args.channel_id)) return fail("channel_not_found");
    if (!str(args.thread_ts)) return fail("invalid_thread_ts");
    if (typeof args.status !== "string") return fail("invalid_arguments");
    return { ok: true };
  },

  "assistant.threads.setSuggestedPrompts": (args) => {
    if (!str(args.channel_id)) return fail("channel_not_found");
    const prompts = args.prompts;
    // Up to four, each with a title and the message it sends.
    const valid =
      Array.isArray(prompts) &&
      prompts.length >= 1 &&
      prompts.length <= 4 &&
      prompts.every((p) => isObj(p) && !!str(p.title) && !!str(p.message));
    if (!valid) return fail("invalid_arguments");
    if (args.title !== undefined && typeof args.title !== "string") return fail("invalid_arguments");
    return { ok: true };
  },

  "assistant.threads.setTitle": (args) => {
    if (!str(args.channel_id)) return fail("channel_not_found");
    if (!str(args.thread_ts)) return fail("invalid_thread_ts");
    if (!str(args.title)) return fail("invalid_arguments");
    return { ok: true };
  },

  "views.open": (args, ctx) => {
    const view = readView(args.view);
    if (!str(args.trigger_id) || !view || view.type !== "modal") return fail("invalid_arguments");
    const stored = storeView(ctx, view);
    ctx.state.opened.push(ctx.call);
    ctx.emit({ kind: "modal", method: "views.open", text: viewTitle(view), blocks: blocksOf(view) });
    return { ok: true, view: stored };
  },

  "views.push": (args, ctx) => {
    const view = readView(args.view);
    if (!str(args.trigger_id) || !view || view.type !== "modal") return fail("invalid_arguments");
    const stored = storeView(ctx, view);
    ctx.emit({ kind: "modal", method: "views.push", text: viewTitle(view), blocks: blocksOf(view) });
    return { ok: true, view: stored };
  },

  "views.update": (args, ctx) => {
    const view = readView(args.view);
    if (!view) return fail("invalid_arguments");
    const byExternal = str(args.external_id);
    let id = str(args.view_id);
    if (!id && byExternal) {
      id = [...ctx.state.views.values()].find((v) => v.external_id === byExternal)?.id as string | undefined;
    }
    const existing = id ? ctx.state.views.get(id) : undefined;
    if (!id || !existing) return fail("not_found");
    const hash = str(args.hash);
    if (hash && hash !== existing.hash) return fail("hash_conflict");
    const stored = storeView(ctx, view, id);
    ctx.emit({ kind: "modal", method: "views.update", text: viewTitle(view), blocks: blocksOf(view) });
    return { ok: true, view: stored };
  },

  "views.publish": (args, ctx) => {
    const user = str(args.user_id);
    const view = readView(args.view);
    if (!user || !view || view.type !== "home") return fail("invalid_arguments");
    const stored = storeView(ctx, view);
    ctx.state.published.set(user, view);
    ctx.emit({ kind: "home", method: "views.publish", user, text: "", blocks: blocksOf(view) });
    return { ok: true, view: stored };
  },

  "files.getUploadURLExternal": (args, ctx) => {
    const filename = str(args.filename);
    const length = Number(args.length);
    if (!filename || !Number.isInteger(length) || length < 1) return fail("invalid_arguments");
    const id = ctx.nextId("F");
    ctx.state.files.push({ id, filename, length, bytes: Buffer.alloc(0), uploaded: false, completed: false });
    return { ok: true, upload_url: `${ctx.origin}/upload/v1/${id}`, file_id: id };
  },

  "files.completeUploadExternal": (args, ctx) => {
    const list = args.files;
    if (!Array.isArray(list) || list.length === 0) return fail("invalid_arguments");
    const wanted: { id: string; title?: string }[] = [];
    for (const f of list) {
      if (!isObj(f) || typeof f.id !== "string") return fail("invalid_arguments");
      wanted.push({ id: f.id, ...(typeof f.title === "string" ? { title: f.title } : {}) });
    }
    const found = wanted.map((w) => ({ w, file: ctx.state.files.find((f) => f.id === w.id) }));
    if (found.some(({ file }) => !file || !file.uploaded)) return fail("file_not_found");
    const channel = str(args.channel_id) ?? str(args.channels)?.split(",")[0];
    const comment = str(args.initial_comment);
    const threadTs = str(args.thread_ts);
    const out = found.map(({ w, file }) => {
      const f = file as UploadedFile;
      f.completed = true;
      f.title = w.title ?? f.filename;
      if (channel) f.channel = channel;
      if (comment) f.initialComment = comment;
      if (threadTs) f.threadTs = threadTs;
      ctx.emit({
        kind: "file",
        method: "files.completeUploadExternal",
        channel,
        threadTs,
        text: comment ?? "",
        blocks: comment ? undefined : parseBlocksArgLoose(args.blocks),
        filename: f.filename,
        bytes: f.bytes.length,
      });
      return {
        id: f.id,
        name: f.filename,
        title: f.title,
        size: f.bytes.length,
        channels: channel ? [channel] : [],
        permalink: `${STANDIN_TEAM.url}files/${STANDIN_BOT.userId}/${f.id}/${encodeURIComponent(f.filename)}`,
      };
    });
    return { ok: true, files: out };
  },
};

function blocksOf(view: Obj): unknown[] | undefined {
  return Array.isArray(view.blocks) ? view.blocks : undefined;
}

function parseBlocksArgLoose(raw: unknown): unknown[] | undefined {
  const p = parseBlocksArg(raw);
  return p.ok ? p.blocks : undefined;
}

export function isKnownMethod(method: string): boolean {
  return Object.hasOwn(handlers, method);
}

export function runMethod(method: string, args: Obj, ctx: MethodContext): MethodResult {
  const handler = handlers[method];
  return handler ? handler(args, ctx) : { ok: false, error: "unknown_method" };
}

export const STANDIN_METHODS = Object.keys(handlers);
