import { Blocks, Elements, Md } from "slack-block-builder";
import { describeFilters } from "../../domain/filters.js";
import { describeDelivery } from "../../domain/subscription-options.js";
import { deliveryOf, type Subscription } from "../../domain/subscription.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { encodeSubscriptionRef, SETTINGS_ACTIONS } from "../settings-ids.js";
import { toKnownBlocks } from "./known-blocks.js";
import { fitList } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { plural } from "./wording.js";

/**
 * The **Settings** button of one subscription (list, and Home: its owner can put it on each
 * subscription line as an accessory).
 */
export function settingsButton(s: Pick<Subscription, "channelId" | "groupId">) {
  return Elements.Button({
    text: "Settings",
    actionId: SETTINGS_ACTIONS.open,
    value: encodeSubscriptionRef({ c: s.channelId, g: s.groupId }),
  });
}

/** The settings button as plain Block Kit JSON, for renderers that do not use the builder. */
export function settingsButtonJson(s: Pick<Subscription, "channelId" | "groupId">) {
  return {
    type: "button" as const,
    text: { type: "plain_text" as const, text: "Settings" },
    action_id: SETTINGS_ACTIONS.open,
    value: encodeSubscriptionRef({ c: s.channelId, g: s.groupId }),
  };
}

/** One subscription in words: name and id, then what arrives (mode, format), filters, paused. */
export function subscriptionLines(s: Subscription): string {
  const name = `${Md.bold(escapeAndTruncate(s.groupName || s.groupId, 100))} (\`${escapeAndTruncate(s.groupId, 60)}\`)`;
  const lines = [
    name,
    `Delivery: ${escapeAndTruncate(describeDelivery(deliveryOf(s)), 300)}`,
    `Filters: ${escapeAndTruncate(describeFilters(s.filters), 1_000)}`,
  ];
  if (s.paused) {
    lines.push(`:pause_button: paused (Slack said \`${escapeAndTruncate(s.paused.code, 60)}\`)`);
  }
  return lines.join("\n");
}

/** `/insight list`: every subscription of the channel with a Settings button, then its schedule. */
export function renderSubscriptionList(
  subs: readonly Subscription[],
  o: { schedule?: string | undefined; canChange: boolean },
): RenderedMessage {
  const count = plural(subs.length, "chat group");
  const head = toKnownBlocks(Blocks.Section({ text: `This channel follows ${count}:` }));
  const items = subs.map((s) => {
    const section = Blocks.Section({ text: subscriptionLines(s) });
    if (o.canChange) section.accessory(settingsButton(s));
    return toKnownBlocks(section);
  });
  // The schedule line is the caller's mrkdwn already.
  const tail = o.schedule ? toKnownBlocks(Blocks.Context().elements(o.schedule)) : [];
  const fitted = fitList({ head, items, tail, more: (n) => `…and ${plural(n, "more subscription")}.` });
  const fallback = subs.map((s) => `• ${s.groupName || s.groupId}`).join("\n");
  const scheduleText = o.schedule ? `\n${o.schedule}` : "";
  return { text: `This channel follows ${count}:\n${fallback}${scheduleText}`, blocks: fitted.blocks };
}
