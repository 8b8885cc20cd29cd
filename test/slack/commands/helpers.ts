import { expect } from "vitest";
import type { Harness } from "../../helpers/app-harness.js";
import { TEST_SIGNING_SECRET } from "../../helpers/app-harness.js";
import { blockActionsPayload } from "../../helpers/slack.js";
import { postSigned } from "../../helpers/slack-signing.js";
import { allTexts } from "../render/walk.js";

export interface ReplyBody {
  text: string;
  blocks?: unknown[];
  replace_original?: boolean;
  response_type?: string;
}

export interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}

const asReply = (body: unknown): ReplyBody => {
  if (typeof body !== "object" || body === null || typeof (body as { text?: unknown }).text !== "string") {
    throw new Error(`not a reply: ${JSON.stringify(body)}`);
  }
  return body as ReplyBody;
};

/** Everything a reply shows, joined: its fallback text and every text in its blocks. */
export const shown = (r: { text?: string; blocks?: unknown[] }): string =>
  [r.text ?? "", ...allTexts(r.blocks ?? [])].join("\n");

/** Sends `/insight <text>`, checks the ack, and returns the reply that arrives at the response URL. */
export async function ask(
  h: Harness,
  text: string,
  o: { channel?: string; user?: string; timeoutMs?: number } = {},
): Promise<ReplyBody> {
  const before = h.slack.responses.length;
  const ack = await h.command(text, o);
  expect(ack.status).toBe(200);
  // Ack first, reply later: the HTTP answer carries nothing, the reply comes via response_url.
  expect(ack.body).toBe("");
  const r = await h.slack.waitFor(() => h.slack.responses[before], { timeoutMs: o.timeoutMs ?? 10_000 });
  return asReply(r.body);
}

/** Every button in blocks (sections' accessories and actions blocks). */
export function buttons(blocks: unknown[] | undefined): Button[] {
  const out: Button[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "button" && typeof o.action_id === "string") out.push(o as unknown as Button);
      else Object.values(o).forEach(visit);
    }
  };
  visit(blocks ?? []);
  return out;
}

export function button(blocks: unknown[] | undefined, actionId: string, label?: string): Button {
  const b = buttons(blocks).find(
    (x) => x.action_id.startsWith(actionId) && (label === undefined || x.text.text.includes(label)),
  );
  if (!b)
    throw new Error(
      `no ${actionId} button ${label ?? ""} in ${JSON.stringify(buttons(blocks).map((x) => x.action_id))}`,
    );
  return b;
}

/** Clicks a button of an ephemeral message; resolves with the reply at the action's response URL. */
export async function click(
  h: Harness,
  b: Button,
  o: {
    channel?: string;
    user?: string;
    container?: Record<string, unknown>;
    view?: Record<string, unknown>;
  } = {},
): Promise<{ status: number; reply: () => Promise<ReplyBody> }> {
  const id = `act-${Math.random().toString(36).slice(2, 10)}`;
  const payload = blockActionsPayload({
    actionId: b.action_id,
    value: b.value,
    channelId: o.channel ?? "C0DIGESTS",
    userId: o.user ?? "U0ALICE",
    responseUrl: h.slack.responseUrl(id),
  });
  if (o.container) payload.container = o.container;
  if (o.view) payload.view = o.view;
  const res = await h.interact(payload);
  return {
    status: res.status,
    reply: async () => {
      const r = await h.slack.waitFor(() => h.slack.responses.find((x) => x.id === id), {
        timeoutMs: 10_000,
      });
      return asReply(r.body);
    },
  };
}

/** An Events API delivery, signed like Slack signs it. */
export async function sendEvent(h: Harness, event: Record<string, unknown>): Promise<{ status: number }> {
  const body = JSON.stringify({
    token: "legacy-verification-token-unused",
    team_id: "T0STANDIN",
    api_app_id: "A0STANDIN",
    event,
    type: "event_callback",
    event_id: `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
  });
  return postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body, "application/json");
}
