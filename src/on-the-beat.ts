/**
 * Runs `fn` every `everyMs`, on the multiples of `everyMs` since the epoch rather than from the
 * call: an idle process's periodic looks of one period (the health watch, the event-loop
 * sampling's look) then wake it once together instead of once each, whenever each was started.
 * The timer does not keep the process alive. Returns what stops it.
 */
export function onTheBeat(everyMs: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    let wait = everyMs - (Date.now() % everyMs);
    // A beat this close is the one that has just run (the clock read a hair early): the next.
    if (wait < everyMs / 10) wait += everyMs;
    timer = setTimeout(() => {
      if (stopped) return;
      arm();
      fn();
    }, wait);
    timer.unref();
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
