'use strict';
/*
 * Preloaded by scripts/ci/other-node.sh (NODE_OPTIONS=--require) into every Node.js process of a test run on another
 * Node version: a native addon of node_modules is loaded from its copy built for this Node's ABI, when there is one,
 * so node_modules itself stays built for the Node it was installed with (other runs may be using it at the same time).
 * The path is mapped when it is resolved, not when it is loaded, because a package may ask for a build that exists
 * only in the copy (node-pty's build/Release for a Node it has no prebuilt addon for).
 * The copies are in .cache/node/<major>/addons of this repository, laid out as node_modules is; the hook needs no
 * environment of its own, so it holds in every process that gets NODE_OPTIONS.
 */
const Module = require('node:module');
const { existsSync, realpathSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const from = existsSync(path.join(root, 'node_modules')) ? realpathSync(path.join(root, 'node_modules')) : undefined;
const dir = path.join(root, '.cache', 'node', process.versions.node.split('.')[0], 'addons');
if (from !== undefined && existsSync(dir)) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveAddonBuiltForThisNode(request, parent, ...rest) {
    if (typeof request === 'string' && request.endsWith('.node') && (path.isAbsolute(request) || request.startsWith('.'))) {
      const wanted = path.resolve(parent && parent.filename ? path.dirname(parent.filename) : process.cwd(), request);
      const inside = path.relative(from, wanted);
      if (!inside.startsWith('..') && !path.isAbsolute(inside)) {
        const rebuilt = path.join(dir, inside);
        if (existsSync(rebuilt)) return rebuilt;
      }
    }
    return resolve.call(this, request, parent, ...rest);
  };
}
