"use strict";
// What the bundle loads for `undici` (scripts/build.ts): the two things the app imports from it,
// Pool and request, from the modules that hold them. undici's index also loads fetch, WebSocket,
// EventSource, its caches and mocks: about 3 MB of heap the app never uses. The wiring is
// index.js's own, for undici 7 (package.json pins it; test/docker/build.test.ts checks it).
const Dispatcher = require("undici/lib/dispatcher/dispatcher.js");
const api = require("undici/lib/api/index.js");
const Pool = require("undici/lib/dispatcher/pool.js");
const { getGlobalDispatcher } = require("undici/lib/global.js");
const { parseURL } = require("undici/lib/core/util.js");
const { InvalidArgumentError } = require("undici/lib/core/errors.js");

// As index.js does: every dispatcher gets request(), stream(), pipeline()...
Object.assign(Dispatcher.prototype, api);

/** undici's `request(url, opts)`, as the app calls it: a URL, and options without `path`. */
function request(url, opts = {}) {
  if (opts.path != null) throw new InvalidArgumentError("opts.path is not supported by this build");
  const u = parseURL(url);
  const { dispatcher = getGlobalDispatcher() } = opts;
  return api.request.call(dispatcher, {
    ...opts,
    origin: u.origin,
    path: u.search ? `${u.pathname}${u.search}` : u.pathname,
    method: opts.method || (opts.body ? "PUT" : "GET"),
  });
}

module.exports = { Pool, request };
