/*
 * The emulator's own control routes under /_emulator/ (not part of the service's interface):
 * faults, webhooks and events at run time, for the demo and for manual poking. Unauthenticated,
 * never fault-injected, never in the request log.
 */
import { z } from "zod";
import { errorResponse, type ApiResponse } from "./api.js";
import type { FaultSpec } from "./faults.js";
import type { Emulator } from "./emulator.js";
import { UnknownResourceError } from "./store.js";

/** What the control routes drive: the emulator's own state and event methods. */
export type ControlTarget = Pick<
  Emulator,
  "faults" | "webhooks" | "requests" | "createThread" | "enrichThread" | "postMessage"
>;

const count = z.number().int().min(0);
const faultBody = z.strictObject({
  rateLimit: z.strictObject({ count, retryAfterSeconds: z.number().int().min(0).optional() }).optional(),
  serverError: z.strictObject({ count, status: z.number().int().min(400).max(599).optional() }).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  down: z.boolean().optional(),
  hang: z.boolean().optional(),
  /** A regular expression source; an addition to the brief's body, handy for the demo. */
  path: z.string().optional(),
});

const webhookBody = z.strictObject({
  url: z.string().refine((u) => URL.canParse(u), { message: "must be a URL" }),
  types: z.array(z.enum(["chatthread-crud", "chatmessage-crud"])).min(1),
  groupIds: z.array(z.string().min(1)).optional(),
});

const threadFields = {
  title: z.string().optional(),
  firstMessageDate: z.string().optional(),
  lastMessageDate: z.string().optional(),
  messageCount: count.optional(),
  summary: z.string().optional(),
  sentiment: z.string().optional(),
  isQuestionLed: z.boolean().optional(),
  questionResponseStatus: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  participantCount: count.optional(),
};
const threadBody = z.strictObject(threadFields);
const enrichBody = z.strictObject({ ...threadFields, action: z.enum(["created", "updated"]).optional() });
const messageBody = z.strictObject({
  messageText: z.string().optional(),
  messageDate: z.string().optional(),
  isSystemMessage: z.boolean().optional(),
  isBotMessage: z.boolean().optional(),
  authorInfo: z.strictObject({ id: z.string(), handle: z.string(), fullName: z.string() }).optional(),
  reactions: z.array(z.strictObject({ emoji: z.string(), count })).optional(),
  quotedMessageText: z.string().optional(),
  quotedMessageAuthor: z.string().optional(),
});

/** Drops keys whose value is undefined, so partials do not overwrite defaults with undefined. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): { value: T } | ApiResponse {
  const r = schema.safeParse(body ?? {});
  if (r.success) return { value: r.data };
  return errorResponse(
    400,
    `invalid body: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"} ${i.message}`).join("; ")}`,
  );
}

export async function handleControl(
  t: ControlTarget,
  method: string,
  segments: string[],
  body: unknown,
): Promise<ApiResponse> {
  const [head, a, b, c, d, ...rest] = segments;
  const route = `${method} ${[head, a && ":a", b, c && ":c", d].filter(Boolean).join("/")}`;
  try {
    if (rest.length > 0) return errorResponse(404, "not found");
    switch (route) {
      case "GET faults":
        return { status: 200, body: serializeFaults(t.faults.active()) };
      case "POST faults": {
        const p = parse(faultBody, body);
        if ("status" in p) return p;
        const { path, ...spec } = p.value;
        let re: RegExp | undefined;
        try {
          re = path === undefined ? undefined : new RegExp(path);
        } catch {
          return errorResponse(400, "invalid body: path is not a regular expression");
        }
        t.faults.set(defined({ ...spec, path: re }) as FaultSpec);
        return { status: 200, body: serializeFaults(t.faults.active()) };
      }
      case "GET webhooks":
        return { status: 200, body: t.webhooks.list() };
      case "POST webhooks": {
        const p = parse(webhookBody, body);
        if ("status" in p) return p;
        return { status: 201, body: t.webhooks.register(defined(p.value) as z.infer<typeof webhookBody>) };
      }
      case "POST webhooks/:a/enable": {
        const info = t.webhooks.reEnable(a ?? "");
        return info ? { status: 200, body: info } : errorResponse(404, `webhook ${a} not found`);
      }
      case "GET deliveries":
        return { status: 200, body: t.webhooks.deliveries() };
      case "GET requests":
        return { status: 200, body: t.requests.all() };
      case "POST groups/:a/threads": {
        const p = parse(threadBody, body);
        if ("status" in p) return p;
        return { status: 201, body: await t.createThread(a ?? "", defined(p.value)) };
      }
      case "POST groups/:a/threads/:c/enrich": {
        const p = parse(enrichBody, body);
        if ("status" in p) return p;
        const { action, ...changes } = p.value;
        const deliveries = await t.enrichThread(a ?? "", c ?? "", defined(changes), action ?? "updated");
        return { status: 200, body: { deliveries } };
      }
      case "POST groups/:a/threads/:c/messages": {
        const p = parse(messageBody, body);
        if ("status" in p) return p;
        return { status: 201, body: await t.postMessage(a ?? "", c ?? "", defined(p.value)) };
      }
      default:
        return errorResponse(404, "not found");
    }
  } catch (e) {
    if (e instanceof UnknownResourceError) return errorResponse(404, e.message);
    throw e;
  }
}

function serializeFaults(f: FaultSpec) {
  return { ...f, ...(f.path ? { path: f.path.source } : {}) };
}
