/*
 * Slack gives an interaction 3 seconds (a trigger_id, a view submission's answer): what may be
 * slow is waited for only so long, and the person is told instead of Slack timing out.
 */

/** The promise's value, or undefined when it takes longer than `ms`. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
