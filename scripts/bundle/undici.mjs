// What the bundle loads for `undici` (scripts/build.ts): the two things the app imports from it,
// Pool and request, from the modules that hold them. undici's index also loads fetch, WebSocket,
// EventSource, its caches and mocks: about 3 MB of heap the app never uses. The wiring is that
// of undici 7's index.js (package.json pins the version; test/docker/bundle.test.ts checks the
// answers against undici's own). A name the app imports that is not exported here fails the build.
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import api from "undici/lib/api/index.js";
import Pool from "undici/lib/dispatcher/pool.js";
import globalDispatcher from "undici/lib/global.js";
import coreUtil from "undici/lib/core/util.js";
import errors from "undici/lib/core/errors.js";

// As index.js does: every dispatcher gets request(), stream(), pipeline()...
Object.assign(Dispatcher.prototype, api);

/** undici's `request(url, opts)`, as the app calls it: a URL, and options without `path`. */
function request(url, opts = {}) {
  if (opts.path != null) throw new errors.InvalidArgumentError("opts.path is not supported by this build");
  const u = coreUtil.parseURL(url);
  const { dispatcher = globalDispatcher.getGlobalDispatcher() } = opts;
  return api.request.call(dispatcher, {
    ...opts,
    origin: u.origin,
    path: u.search ? `${u.pathname}${u.search}` : u.pathname,
    method: opts.method || (opts.body ? "PUT" : "GET"),
  });
}

export { Pool, request };
