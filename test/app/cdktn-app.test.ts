/**
 * The CDK Terrain app of the README (`npm run new-app -- <folder> --cdktn`) on Node 22, which cdktn-cli needs:
 * `npm install`, `npx cdktn deploy` onto the local platform, an empty `npx cdktn diff` and `npx cdktn destroy`.
 */
import { nodeRuntime } from '../support/node-versions';
import { describeAppLifecycle } from './lifecycle';

// npm installs from the registry: minutes, on a busy machine
jest.setTimeout(900_000);

describeAppLifecycle({ flavour: 'cdktn', readmeFolder: '../my-terrain-agents', path: () => nodeRuntime(22).path, nodeMajor: 22 });
