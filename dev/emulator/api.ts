/*
 * The six read-only endpoints of spec section 4, as pure functions from a parsed request to a
 * status and a JSON body. Transport (sockets, faults, auth header, logging) lives in server.ts.
 */
import { mayRead } from "./keys.js";
import { pagination, parseListParams, rangeStart } from "./params.js";
import { searchGroup } from "./search.js";
import type { EmulatorStore } from "./store.js";
import type { EmulatedGroup, Grant } from "./types.js";
import { communityView, groupDetailView, groupView, messageView, threadView } from "./views.js";

export interface ApiContext {
  store: EmulatorStore;
  now: () => Date;
  searchParam: string;
}

export interface ApiRequest {
  /** Path segments after /api/v1 (or /api), decoded. */
  segments: string[];
  query: URLSearchParams;
  grant: Grant;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The error body is not shown in the interface; the emulator answers `{ error, status }`. */
export const errorResponse = (
  status: number,
  error: string,
  headers?: Record<string, string>,
): ApiResponse => ({
  status,
  body: { error, status },
  ...(headers ? { headers } : {}),
});

const ok = (body: unknown): ApiResponse => ({ status: 200, body });

export function handleApi(ctx: ApiContext, req: ApiRequest): ApiResponse {
  const [head, id, tail, ...rest] = req.segments;
  if (rest.length === 0) {
    if (head === "community" && id === undefined) return listCommunities(ctx, req);
    if (head === "community" && id !== undefined && tail === "chatgroup") return listGroups(ctx, req, id);
    if (head === "chatgroup" && id !== undefined) {
      const found = findGroup(ctx, req, id);
      if ("status" in found) return found;
      const group = found.group;
      if (tail === undefined) return ok(groupDetailView(group, counts(ctx, group)));
      if (tail === "displaychatthread") return listThreads(ctx, req, group);
      if (tail === "displaychatmessage") return listMessages(ctx, req, group);
      if (tail === "search") return search(ctx, req, group);
    }
  }
  return errorResponse(404, "not found");
}

function counts(ctx: ApiContext, g: EmulatedGroup) {
  return { messageCount: ctx.store.messageCount(g._id), threadCount: ctx.store.threadCount(g._id) };
}

function findGroup(ctx: ApiContext, req: ApiRequest, id: string): { group: EmulatedGroup } | ApiResponse {
  const group = ctx.store.group(id);
  if (!group) return errorResponse(404, `chat group ${id} not found`);
  if (!mayRead(req.grant, group.community))
    return errorResponse(403, "this API key may not read that chat group");
  return { group };
}

function listCommunities(ctx: ApiContext, req: ApiRequest): ApiResponse {
  return ok(
    ctx.store
      .communities()
      .filter((c) => mayRead(req.grant, c._id))
      .map(communityView),
  );
}

function listGroups(ctx: ApiContext, req: ApiRequest, communityId: string): ApiResponse {
  if (!ctx.store.community(communityId)) return errorResponse(404, `community ${communityId} not found`);
  if (!mayRead(req.grant, communityId)) return errorResponse(403, "this API key may not read that community");
  const excludeDM = req.query.get("excludeDM");
  if (excludeDM !== null && excludeDM !== "true" && excludeDM !== "false") {
    return errorResponse(400, "invalid excludeDM: must be true or false");
  }
  return ok(
    ctx.store
      .groups(communityId)
      .filter((g) => !(excludeDM === "true" && g.isDirectMessageGroup))
      .map(groupView),
  );
}

function listThreads(ctx: ApiContext, req: ApiRequest, group: EmulatedGroup): ApiResponse {
  const p = parseListParams(req.query);
  if (!p.ok) return errorResponse(400, p.error);
  const { page, limit, sort, range } = p.value;
  const w = ctx.store.threadWindow(group._id, rangeStart(range, ctx.now()), sort, (page - 1) * limit, limit);
  return ok({ data: w.data.map(threadView), pagination: pagination(page, limit, w.total) });
}

function listMessages(ctx: ApiContext, req: ApiRequest, group: EmulatedGroup): ApiResponse {
  const p = parseListParams(req.query);
  if (!p.ok) return errorResponse(400, p.error);
  const { page, limit, sort, range } = p.value;
  const threadId = req.query.get("chatThreadId") ?? undefined;
  if (threadId === "") return errorResponse(400, "invalid chatThreadId: must not be empty");
  const w = ctx.store.messageWindow(
    group._id,
    threadId,
    rangeStart(range, ctx.now()),
    sort,
    (page - 1) * limit,
    limit,
  );
  const data = w.data.map((m) => messageView(m, ctx.store.thread(group._id, m.threadId)));
  return ok({ data, pagination: pagination(page, limit, w.total) });
}

function search(ctx: ApiContext, req: ApiRequest, group: EmulatedGroup): ApiResponse {
  const text = req.query.get(ctx.searchParam)?.trim();
  if (!text) return errorResponse(400, `missing search text: the ${ctx.searchParam} parameter is required`);
  const p = parseListParams(req.query, { withRange: false });
  if (!p.ok) return errorResponse(400, p.error);
  const { page, limit } = p.value;
  const hits = searchGroup(text, ctx.store.threads(group._id), ctx.store.messages(group._id));
  const data = hits.slice((page - 1) * limit, page * limit).map((h) =>
    h.type === "thread"
      ? { type: "thread" as const, score: h.score, ...threadView(h.thread) }
      : {
          type: "message" as const,
          score: h.score,
          ...messageView(h.message, ctx.store.thread(group._id, h.message.threadId)),
        },
  );
  return ok({ data, pagination: pagination(page, limit, hits.length) });
}
