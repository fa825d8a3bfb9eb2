/**
 * The README's "Start a new app": `npm run new-app -- <folder>`, then `npm install` from the registry, `npx cdktf deploy` onto
 * the local platform, an empty `npx cdktf diff` and `npx cdktf destroy`, exactly as the README's lines say.
 */
import { describeAppLifecycle } from './lifecycle';

// npm installs from the registry: minutes, on a busy machine
jest.setTimeout(900_000);

describeAppLifecycle({ flavour: 'cdktf', readmeFolder: '../my-agents', path: () => process.env.PATH ?? '', nodeMajor: Number(process.versions.node.split('.')[0]) });
