/**
 * The sources of `@agentplatform/cdktf` are the import closure of `lib/constructs`, found by the TypeScript API:
 * the constructs, the parts of the API layer and of the installer they use, the provider's constants, and nothing
 * of the provider's runtime or of the local platform (whose dependencies the package must not need).
 */
import { join } from 'node:path';
import { importClosure } from '../../scripts/packages/closure';
import { REPO_ROOT } from '../local/support/build';

describe('importClosure', () => {
  const lib = join(REPO_ROOT, 'lib');
  const closure = importClosure(join(lib, 'constructs', 'index.ts'), lib, join(REPO_ROOT, 'tsconfig.json'));

  it('follows the imports of lib/constructs into the API layer, the installer and the provider constants', () => {
    expect(closure).toEqual(expect.arrayContaining(['constructs/index.ts', 'constructs/provider.ts', 'install/provider.ts', 'install/release.ts', 'provider/constants.ts', 'api/filter/index.ts']));
  });

  it('holds nothing of the provider runtime or the local platform', () => {
    expect(closure.filter((file) => file.startsWith('local/') || (file.startsWith('provider/') && file !== 'provider/constants.ts'))).toEqual([]);
  });

  it('holds only files of lib, relative to it', () => {
    expect(closure.every((file) => !file.startsWith('/') && !file.startsWith('..') && file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(true);
  });
});
