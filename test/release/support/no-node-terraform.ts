/**
 * A terraform working directory whose environment has no Node.js: `PATH` holds only terraform, `HOME` is empty (no
 * `~/.terraformrc`), and the CLI configuration is the file a test writes. Shell steps of the docs run with `/bin/sh`
 * in the same environment, as a user's shell session would.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, type TerraformResult } from '../../provider/support/terraform';
import { terraformOnlyPath } from '../../support/terraform-only-path';

/** A configuration directory, with its own terraform-only `PATH`, home and CLI configuration file. */
export class NoNodeTerraform {
  /** The configuration directory terraform runs in. */
  readonly dir: string;
  /** The CLI configuration file (`TF_CLI_CONFIG_FILE`), empty until {@link writeCliConfig}. */
  readonly cliConfig: string;
  readonly env: NodeJS.ProcessEnv;

  private constructor(readonly root: string, extraEnv: NodeJS.ProcessEnv) {
    this.dir = join(root, 'config');
    const home = join(root, 'home');
    mkdirSync(this.dir);
    mkdirSync(home);
    this.cliConfig = join(root, 'terraform.rc');
    writeFileSync(this.cliConfig, '');
    this.env = {
      PATH: terraformOnlyPath(join(root, 'bin')),
      HOME: home,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      // every command of the docs, uncoloured: the tests read terraform's output
      TF_CLI_ARGS: '-no-color',
      TF_CLI_CONFIG_FILE: this.cliConfig,
      ...extraEnv,
    };
  }

  /** A new directory in the test run's temporary folder; `extraEnv` is added to terraform's environment. */
  static create(extraEnv: NodeJS.ProcessEnv = {}): NoNodeTerraform {
    return new NoNodeTerraform(mkdtempSync(join(tmpdir(), 'tf-release-')), extraEnv);
  }

  /** Writes a file of the configuration. */
  write(name: string, content: string): void {
    writeFileSync(join(this.dir, name), content);
  }

  /** Writes the CLI configuration file. */
  writeCliConfig(content: string): void {
    writeFileSync(this.cliConfig, content);
  }

  /** Runs terraform with these arguments. */
  run(args: readonly string[]): Promise<TerraformResult> {
    return collect(spawn('terraform', [...args], { cwd: this.dir, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  /** Runs a shell script (a code block of the docs) in the directory; the first failing command ends it. */
  shell(script: string): Promise<TerraformResult> {
    return collect(spawn('/bin/sh', ['-e', '-c', script], { cwd: this.dir, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  /** Removes everything the directory made. */
  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
