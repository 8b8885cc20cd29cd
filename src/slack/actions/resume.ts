import type { Logger } from "../../log.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { ADMIN_ONLY_REFUSAL, mayChangeConfig } from "../authorize.js";
import { decodeState, resumeStateSchema } from "../button-values.js";
import { publishHome, type HomeDeps } from "../home/publish-home.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { channelRef } from "../render/status.js";
import type { ButtonListener } from "./listeners.js";
import { STALE_BUTTON } from "./reply.js";
import { EMOJI } from "../render/wording.js";

export interface ResumeDeps {
  subscriptions: Pick<SubscriptionStore, "get" | "resume">;
  /** A resumed digest subscription gets its period schedule back. */
  syncDigest: (channelId: string, groupId: string) => Promise<void>;
  adminUserIds: readonly string[];
  logger: Logger;
}

/**
 * The Home tab's "Resume" button: resumes a paused subscription (admins only, when
 * ADMIN_USER_IDS is set) and returns the notice the refreshed tab shows.
 */
export async function resumeFromHome(
  deps: ResumeDeps,
  a: { value: string | undefined; userId: string },
): Promise<string> {
  if (!mayChangeConfig(a.userId, deps.adminUserIds)) return ADMIN_ONLY_REFUSAL;
  const target = decodeState(resumeStateSchema, a.value);
  const sub = target ? await deps.subscriptions.get(target.c, target.g) : undefined;
  if (!target || !sub) return STALE_BUTTON;
  const resumed = await deps.subscriptions.resume(target.c, target.g);
  if (resumed) await deps.syncDigest(target.c, target.g);
  const name = `*${escapeMrkdwn(sub.groupName || sub.groupId)}*`;
  deps.logger.info(
    { channel: target.c, groupId: target.g, user: a.userId, resumed },
    "subscription resumed from Home",
  );
  return resumed
    ? `${EMOJI.resumed} Resumed digests of ${name} in ${channelRef(target.c)}.`
    : `${name} in ${channelRef(target.c)} was not paused.`;
}

export function resumeAction(deps: ResumeDeps & HomeDeps): ButtonListener {
  return async ({ ack, action, body }) => {
    await ack();
    try {
      const notice = await resumeFromHome(deps, { value: action.value, userId: body.user.id });
      await publishHome(deps, body.user.id, { notice });
    } catch (err) {
      deps.logger.error({ err }, "resume failed");
    }
  };
}
