/**
 * undici as the provider's executable uses it: the keep-alive Agent and its request API (lib/api/http.ts). undici's
 * index loads every feature it has (fetch, WebSocket, caches, mocks) at once, and a plan that reads pays for it.
 * The bundle aliases `undici` to this file, so undici's own modules are reached by path.
 */
const Dispatcher = require('../../node_modules/undici/lib/dispatcher/dispatcher') as { prototype: object };
// what undici's index does: the request API lives on every dispatcher
Object.assign(Dispatcher.prototype, require('../../node_modules/undici/lib/api') as object);

/** undici's Agent. */
export const Agent = require('../../node_modules/undici/lib/dispatcher/agent') as typeof import('undici').Agent;
