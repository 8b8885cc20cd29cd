import type { Middleware } from "@slack/bolt";
import type { DepsOf } from "../feature.js";

/**
 * A listener that acts for the request's workspace: `make` (a listener factory taking a
 * feature's narrow deps, like `viewMessagesAction`) is given the deps the root resolved for
 * this request, explicitly, from Bolt's `context`. One listener per workspace's deps is made
 * and kept, so factories that hold state (a debounce, a cache) keep it per workspace.
 */
export function perRequest<D extends object, A>(
  depsOf: DepsOf<D>,
  make: (deps: D) => Middleware<A>,
): Middleware<A> {
  const made = new WeakMap<D, Middleware<A>>();
  return (args) => {
    const deps = depsOf(args.context);
    let listener = made.get(deps);
    if (!listener) {
      listener = make(deps);
      made.set(deps, listener);
    }
    return listener(args);
  };
}
