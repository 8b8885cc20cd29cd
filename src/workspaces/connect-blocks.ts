import { Bits, Blocks, Elements, Md, Modal, type BlockBuilder } from "slack-block-builder";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "../slack/render/known-blocks.js";
import { EMOJI, readerDate, slackDate } from "../slack/render/wording.js";
import type { ModalView } from "@slack/types";

/*
 * What Connect looks like: the Home tab's connection section and the Connect modal. Pure
 * functions; the API key is never an input to any of them, so it can never be shown again.
 */

export const CONNECT_ACTIONS = {
  open: "insight.connect.open",
  rotate: "insight.connect.rotate",
  disconnect: "insight.connect.disconnect",
} as const;
export const CONNECT_MODAL = "insight.connect.modal";
export const CONNECT_FIELDS = {
  apiKey: { block: "connect_api_key", action: "api_key" },
  baseUrl: { block: "connect_base_url", action: "base_url" },
} as const;

export function webhookUrl(publicUrl: string | undefined, secret: string): string {
  return `${publicUrl ?? "https://<this app's public address>"}/webhooks/insight/${secret}`;
}

/** The exact steps in the Insight Service dashboard, with this workspace's URL. */
export function dashboardSteps(url: string): string {
  return [
    "*In the Insight Service dashboard:*",
    "1. Open *Webhooks* and choose *Add webhook* (or edit the one that pointed at the old URL).",
    `2. Paste this URL: \`${escapeMrkdwn(url)}\``,
    "3. Tick the events *chatthread-crud* and *chatmessage-crud*, and save.",
    "4. Back in Slack, run `/insight groups` in a channel and subscribe it to a chat group.",
  ].join("\n");
}

export interface ConnectionView {
  connected: boolean;
  connectedBy?: string;
  connectedAt?: string;
  /** Shown to admins only: the URL embeds the workspace's webhook secret. */
  webhookUrl?: string;
  /** Since when the service refuses the stored key (401), while it does. */
  keyRejectedAt?: string;
}

/** "… refused this workspace's API key since <date>", the date in the reader's zone. */
function refusedSince(at: string): string {
  const ms = Date.parse(at);
  return `The Insight Service refused this workspace's API key${Number.isNaN(ms) ? "" : ` since ${slackDate(ms)}`}`;
}

/** The DM each admin gets once per incident: what stopped and where to fix it. */
export function renderKeyRejectedDm(keyRejectedAt: string): string {
  return `${EMOJI.problem} ${refusedSince(keyRejectedAt)}. Digests, commands and weekly summaries need it: open this app's *Home* tab and press *Reconnect* to paste a working key.`;
}

/** The Home tab's banner while the key is refused: admins get Reconnect. */
function keyRejectedBanner(at: string, viewerIsAdmin: boolean): BlockBuilder {
  const text = viewerIsAdmin
    ? `${EMOJI.problem} *${refusedSince(at)}:* reconnect. Digests, commands and weekly summaries stop until a working key is saved.`
    : `${EMOJI.problem} *${refusedSince(at)}.* A workspace admin can reconnect it here.`;
  const section = Blocks.Section({ text });
  if (viewerIsAdmin) {
    section.accessory(Elements.Button({ text: "Reconnect", actionId: CONNECT_ACTIONS.open }).primary());
  }
  return section;
}

/** The Home tab's top section: Connect, or the connection with Rotate and Disconnect (admins). */
export function renderConnectionSection(c: ConnectionView, viewerIsAdmin: boolean): KnownBlock[] {
  if (!c.connected) {
    const text = viewerIsAdmin
      ? `${EMOJI.notConnected} *Connect the Insight Service* — paste this workspace's API key to start receiving digests.`
      : `${EMOJI.notConnected} The Insight Service is not connected yet. A workspace admin can connect it here.`;
    const section = Blocks.Section({ text });
    if (viewerIsAdmin) {
      section.accessory(Elements.Button({ text: "Connect", actionId: CONNECT_ACTIONS.open }).primary());
    }
    return toKnownBlocks(section, Blocks.Divider());
  }
  const who = c.connectedBy ? ` by <@${escapeMrkdwn(c.connectedBy)}>` : "";
  const when = c.connectedAt ? ` on ${readerDate(c.connectedAt, "{date_short}")}` : "";
  const blocks: BlockBuilder[] = [
    ...(c.keyRejectedAt ? [keyRejectedBanner(c.keyRejectedAt, viewerIsAdmin)] : []),
    Blocks.Section({ text: `${EMOJI.ok} *Insight Service connected*${who}${when}.` }),
  ];
  if (viewerIsAdmin && c.webhookUrl) {
    blocks.push(
      Blocks.Section({ text: `This workspace's webhook URL:\n\`${escapeMrkdwn(c.webhookUrl)}\`` }),
      Blocks.Actions().elements(
        Elements.Button({ text: "Change API key", actionId: CONNECT_ACTIONS.open }),
        Elements.Button({ text: "New webhook secret", actionId: CONNECT_ACTIONS.rotate }).confirm(
          Bits.ConfirmationDialog({
            title: "New webhook secret?",
            text: "The current webhook URL stops working at once. Paste the new one in the Insight Service dashboard.",
            confirm: "Make a new one",
            deny: "Cancel",
          }),
        ),
        Elements.Button({ text: "Disconnect", actionId: CONNECT_ACTIONS.disconnect })
          .danger()
          .confirm(
            Bits.ConfirmationDialog({
              title: "Disconnect?",
              text: "The API key is deleted and the webhook URL stops working. Subscriptions stay, and resume when you connect again.",
              confirm: "Disconnect",
              deny: "Cancel",
            }).danger(),
          ),
      ),
    );
  }
  return toKnownBlocks(...blocks, Blocks.Divider());
}

/** The Connect modal: the API key, and the base URL only when the deployment does not fix it. */
export function renderConnectModal(o: { askBaseUrl: boolean; problem?: string }): ModalView {
  const modal = Modal({
    title: "Connect Insight",
    submit: "Check and save",
    close: "Cancel",
    callbackId: CONNECT_MODAL,
  });
  const blocks: BlockBuilder[] = [
    Blocks.Section({
      text: "Paste the API key of your Insight Service account. It is checked against the service, stored encrypted, and never shown again.",
    }),
  ];
  if (o.askBaseUrl) {
    blocks.push(
      Blocks.Input({ label: "Service address", blockId: CONNECT_FIELDS.baseUrl.block }).element(
        Elements.TextInput({
          actionId: CONNECT_FIELDS.baseUrl.action,
          placeholder: "https://insight.example.com",
        }),
      ),
    );
  }
  blocks.push(
    Blocks.Input({ label: "API key", blockId: CONNECT_FIELDS.apiKey.block }).element(
      Elements.TextInput({ actionId: CONNECT_FIELDS.apiKey.action, placeholder: "Paste the key here" }),
    ),
  );
  if (o.problem) blocks.push(Blocks.Context().elements(`${EMOJI.problem} ${escapeMrkdwn(o.problem)}`));
  return modal.blocks(...blocks).buildToObject() as ModalView;
}

/** After a successful Connect (or a new secret): the URL and the dashboard steps. */
export function renderConnectedModal(url: string): ModalView {
  return Modal({ title: "Insight connected", close: "Done" })
    .blocks(
      Blocks.Section({ text: `${EMOJI.ok} The key works and is saved. One step left:` }),
      Blocks.Section({ text: dashboardSteps(url) }),
      Blocks.Context().elements(
        `The Home tab shows this URL again to admins. ${Md.italic("Keep it private: anyone with it can send the app updates as the Insight Service.")}`,
      ),
    )
    .buildToObject() as ModalView;
}
