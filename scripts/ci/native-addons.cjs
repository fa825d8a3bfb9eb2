'use strict';
/*
 * Preloaded by scripts/ci/other-node.sh (NODE_OPTIONS=--require) into every Node.js process of a test run on another
 * Node version: a native addon of node_modules is loaded from its copy built for this Node's ABI, when there is one,
 * so node_modules itself stays built for the Node it was installed with (other runs may be using it at the same time).
 * AGENTPLATFORM_ADDONS_FROM is node_modules' real path, AGENTPLATFORM_ADDONS_DIR the directory of rebuilt copies,
 * laid out the same way.
 */
const Module = require('node:module');
const { existsSync } = require('node:fs');
const path = require('node:path');

const from = process.env.AGENTPLATFORM_ADDONS_FROM;
const dir = process.env.AGENTPLATFORM_ADDONS_DIR;
if (from && dir) {
  const load = Module._extensions['.node'];
  Module._extensions['.node'] = function loadAddonBuiltForThisNode(module, filename) {
    const inside = path.relative(from, filename);
    const rebuilt = inside.startsWith('..') || path.isAbsolute(inside) ? undefined : path.join(dir, inside);
    return load.call(this, module, rebuilt !== undefined && existsSync(rebuilt) ? rebuilt : filename);
  };
}
