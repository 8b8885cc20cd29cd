import { Blocks, Elements, Md } from "slack-block-builder";
import type { AlertSettings } from "../../domain/alerts.js";
import { describeFilters } from "../../domain/filters.js";
import { describeDelivery } from "../../domain/subscription-options.js";
import { deliveryOf, type Subscription } from "../../domain/subscription.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { encodeSubscriptionRef, SETTINGS_ACTIONS } from "../settings-ids.js";
import { describeAlerts } from "./alert-settings.js";
import { toKnownBlocks } from "./known-blocks.js";
import { fitList } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { describeSlackError } from "../errors.js";
import { EMOJI, plural } from "./wording.js";

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

/** What `list` knows of the channel besides its subscriptions. */
export interface ListContext {
  /** The channel's zone, which digest periods align on. */
  timeZone?: string | undefined;
  /** The channel's alerts (every group); absent: not shown. */
  alerts?: readonly AlertSettings[] | undefined;
}

/** "Alerts: off" or the bullets of the `alerts` reply. */
function alertLines(a: AlertSettings | undefined): string {
  const lines = a ? describeAlerts(a) : [];
  return lines.length === 0 ? "Alerts: off" : `Alerts:\n${lines.join("\n")}`;
}

/** One subscription in words: name and id, then what arrives (mode, format), filters, alerts, paused. */
export function subscriptionLines(s: Subscription, o: ListContext = {}): string {
  const name = `${Md.bold(escapeAndTruncate(s.groupName || s.groupId, 100))} (\`${escapeAndTruncate(s.groupId, 60)}\`)`;
  const lines = [
    name,
    `Delivery: ${escapeAndTruncate(describeDelivery(deliveryOf(s), o.timeZone), 300)}`,
    `Filters: ${escapeAndTruncate(describeFilters(s.filters), 1_000)}`,
  ];
  if (o.alerts) lines.push(alertLines(o.alerts.find((a) => a.groupId === s.groupId)));
  if (s.paused) {
    lines.push(`${EMOJI.paused} paused: ${describeSlackError(s.paused.code)}`);
  }
  return lines.join("\n");
}

/** A group with alerts here that the channel does not follow. */
function alertsOnlyLines(a: AlertSettings): string {
  const name = `${Md.bold(escapeAndTruncate(a.groupName || a.groupId, 100))} (\`${escapeAndTruncate(a.groupId, 60)}\`)`;
  return `${name}\nNot followed here, alerts only.\n${alertLines(a)}`;
}

/**
 * `/insight list`: every subscription of the channel with a Settings button, then the groups
 * it has only alerts for, then its schedule.
 */
export function renderSubscriptionList(
  subs: readonly Subscription[],
  o: ListContext & { schedule?: string | undefined; canChange: boolean },
): RenderedMessage {
  const headline =
    subs.length > 0
      ? `This channel follows ${plural(subs.length, "chat group")}:`
      : "This channel follows no chat group, but has alerts:";
  const head = toKnownBlocks(Blocks.Section({ text: headline }));
  const items = subs.map((s) => {
    const section = Blocks.Section({ text: subscriptionLines(s, o) });
    if (o.canChange) section.accessory(settingsButton(s));
    return toKnownBlocks(section);
  });
  const followed = new Set(subs.map((s) => s.groupId));
  const alertsOnly = (o.alerts ?? []).filter((a) => !followed.has(a.groupId));
  for (const a of alertsOnly) items.push(toKnownBlocks(Blocks.Section({ text: alertsOnlyLines(a) })));
  // The schedule line is the caller's mrkdwn already.
  const tail = o.schedule ? toKnownBlocks(Blocks.Context().elements(o.schedule)) : [];
  const fitted = fitList({ head, items, tail, more: (n) => `…and ${plural(n, "more subscription")}.` });
  const fallback = [
    ...subs.map((s) => `• ${s.groupName || s.groupId}`),
    ...alertsOnly.map((a) => `• ${a.groupName || a.groupId} (alerts only)`),
  ].join("\n");
  const scheduleText = o.schedule ? `\n${o.schedule}` : "";
  return { text: `${headline}\n${fallback}${scheduleText}`, blocks: fitted.blocks };
}
