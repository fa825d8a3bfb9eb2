/**
 * The life of a new app, as the README tells it: its "Start a new app" lines, run one by one as written (the app's
 * folder moved into the test's temporary directory), onto the local platform, with checks through the platform's
 * APIs between them: the command makes the app, `npm install` installs it from the registry, deploy creates
 * everything, diff finds nothing to change, destroy removes everything.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAVOURS, type Flavour } from '../../scripts/new-app-files';
import { packageTarball } from '../support/packages';
import { AppPlatform, dependencyTree, packagesWithBindingGyp, readmeBlock, ReadmeSession, REPOSITORY_ROOT, runCommand } from './support';

export interface AppLifecycleOptions {
  readonly flavour: Flavour;
  /** The folder the README's block names for the app, e.g. `../my-agents`. */
  readonly readmeFolder: string;
  /** The PATH the lines run with (its first `node` runs npm, the CLI and the app). */
  readonly path: () => string;
  /** The major version of that `node`. */
  readonly nodeMajor: number;
}

export function describeAppLifecycle({ flavour, readmeFolder, path, nodeMajor }: AppLifecycleOptions): void {
  const spec = FLAVOURS[flavour];
  const cli = spec.core;

  describe(`a new ${cli} app, from the README`, () => {
    const work = mkdtempSync(join(tmpdir(), `new-${flavour}-app-`));
    const app = join(work, 'app');
    let platform: AppPlatform;
    let env: NodeJS.ProcessEnv;
    let session: ReadmeSession;
    let lines: string[];

    beforeAll(async () => {
      // the command packs no stale package: it takes the tarball in dist/packages/, built here when out of date
      packageTarball(flavour);
      platform = await AppPlatform.start(work);
      env = platform.environment(work, path());
      mkdirSync(env.HOME!, { recursive: true });
      session = new ReadmeSession(env);
      lines = readmeBlock(`npm run new-app -- ${readmeFolder}${flavour === 'cdktn' ? ' --cdktn' : ''}`).map((line) =>
        line.split(readmeFolder).join(app),
      );
    });

    afterAll(async () => {
      await platform?.close();
      rmSync(work, { recursive: true, force: true });
    });

    test('the README lists the command, npm install, deploy, diff and destroy', () => {
      expect(lines).toEqual([
        expect.stringMatching(/^npm run new-app -- /),
        `cd ${app} && npm install`,
        `npx ${cli} deploy --auto-approve`,
        `npx ${cli} diff`,
        `npx ${cli} destroy --auto-approve`,
      ]);
    });

    test('the command makes the app in an empty folder, with pinned versions and the construct package in vendor/', async () => {
      mkdirSync(app);
      await session.run(lines[0]!);
      const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
      const tarball = manifest.dependencies![spec.constructsPackage]!;
      expect(tarball).toMatch(/^file:vendor\/.+\.tgz$/);
      expect(existsSync(join(app, tarball.slice('file:'.length)))).toBe(true);
      expect(manifest.dependencies).toMatchObject({ [cli]: spec.coreVersion, constructs: spec.constructsVersion });
      expect(manifest.devDependencies).toMatchObject({ [spec.cli]: spec.coreVersion, typescript: '5.9.3' });
      expect(JSON.parse(readFileSync(join(app, 'tsconfig.json'), 'utf8')).compilerOptions.strict).toBe(true);
      expect(readFileSync(join(app, 'main.ts'), 'utf8')).toMatch(/new ScheduledExport\(/);
    });

    test('it refuses a folder that is not empty, naming it', async () => {
      const again = await runCommand('node', [join('dist', 'scripts', 'new-app.js'), app], { cwd: REPOSITORY_ROOT, env: process.env });
      expect(again.code).toBe(1);
      expect(again.output).toContain(`new-app: ${app} is not empty`);
    });

    test(`npm install (Node ${nodeMajor}) installs no binding.gyp through the construct package`, async () => {
      expect((await runCommand('node', ['--version'], { cwd: app, env })).output).toMatch(new RegExp(`^v${nodeMajor}\\.`));
      await session.run(lines[1]!);
      const withBindingGyp = packagesWithBindingGyp(app);
      const ours = dependencyTree(app, spec.constructsPackage);
      expect([...withBindingGyp].filter((dir) => ours.has(dir))).toEqual([]);
      // The CLI's own tree may hold one (cdktf-cli 0.21 depends on @cdktf/node-pty-prebuilt-multiarch, which ships
      // its binding.gyp beside prebuilt binaries): it is a tool of the app's, not part of what the app deploys with.
      const cliTree = dependencyTree(app, spec.cli);
      expect([...withBindingGyp].filter((dir) => !cliTree.has(dir))).toEqual([]);
    });

    test(`${cli} deploy creates the deployment (DEPLOYED), the destination and the daily export`, async () => {
      await session.run(lines[2]!);
      const { resources } = await platform.controlPlane.listDeployments({ nameContains: 'my-agent' });
      expect(resources).toHaveLength(1);
      const deployment = resources[0]!;
      expect((await platform.controlPlane.getRevision(deployment.id, deployment.latest_revision_id!)).status).toBe('DEPLOYED');
      const destinations = await platform.tracing.listDestinations();
      expect(destinations).toEqual([expect.objectContaining({ display_name: 'trace archive' })]);
      const exports = await platform.tracing.listExports();
      expect(exports).toEqual([
        expect.objectContaining({ session_id: platform.tracingProjectId, interval_hours: 24, bulk_export_destination_id: destinations[0]!.id }),
      ]);
    });

    test(`${cli} diff finds nothing to change`, async () => {
      expect((await session.run(lines[3]!)).output).toMatch(/No changes/);
    });

    test(`${cli} destroy removes the deployment and cancels the export`, async () => {
      const exportId = (await platform.tracing.listExports())[0]!.id;
      await session.run(lines[4]!);
      expect((await platform.controlPlane.listDeployments({ nameContains: 'my-agent' })).resources).toEqual([]);
      expect((await platform.tracing.getExport(exportId)).status).toBe('Cancelled');
    });
  });
}
