/**
 * The linux_amd64 executable of the release runs where no Node.js is: started with terraform's magic cookie it
 * prints go-plugin's handshake line, without it the provider's message, and terraform installs it from the zip
 * (checking the release's h1), runs it and gets the release version in the provider's User-Agent.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../lib/provider/main';
import { collect } from '../provider/support/terraform';
import { releaseDir, releaseVersion } from '../support/release';
import { terraformOnlyPath } from '../support/terraform-only-path';
import { readZip } from './support/zip-reader';

const PREFIX = 'terraform-provider-agentplatform';
const ADDRESS_PATH = join('registry.terraform.io', 'agentplatform', 'agentplatform');

/** The terraform executable on the PATH the tests run with. */
describe('the linux_amd64 executable', () => {
  let work: string;
  let dir: string;
  let version: string;
  let executable: string;
  /** A PATH with terraform alone: no node. */
  let bareBin: string;
  beforeAll(() => {
    dir = releaseDir();
    version = releaseVersion();
    work = mkdtempSync(join(tmpdir(), 'release-linux-'));
    const [entry] = readZip(readFileSync(join(dir, `${PREFIX}_${version}_linux_amd64.zip`)));
    executable = join(work, entry!.name);
    writeFileSync(executable, entry!.data);
    chmodSync(executable, 0o755);
    bareBin = terraformOnlyPath(join(work, 'bin'));
  }, 30 * 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('prints the handshake line when started with the magic cookie and no node on the PATH', async () => {
    const child = spawn(executable, [], {
      env: { PATH: bareBin, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '6', PLUGIN_UNIX_SOCKET_DIR: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        child.once('error', reject);
        child.once('exit', (code) => reject(new Error(`exited with ${code} before the handshake`)));
      });
      // go-plugin's unix socket, in a folder of its own under the directory terraform names
      const [core, protocol, network, address, transport] = line.split('|');
      expect([core, protocol, network, transport]).toEqual(['1', '6', 'unix', 'grpc']);
      expect(address!.startsWith(`${work}/plugin`)).toBe(true);
      expect(line.endsWith('|\n')).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('prints the provider message and exits 1 when run by hand', async () => {
    const result = await collect(spawn(executable, [], { env: { PATH: bareBin }, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^This binary is a plugin for terraform: the agentplatform provider\.\n/);
    // the ways to install it, the mirror and registry (no Node.js) first
    expect(result.stderr).toContain('provider mirror or a private registry');
    expect(result.stderr).toContain('docs/provider.md');
  });

  it('is installed by terraform from the zip with the release h1 and sends the release version as its User-Agent', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server: Server = createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const config = join(work, 'config');
    try {
      const mirror = join(config, 'terraform.d', 'plugins', ADDRESS_PATH);
      mkdirSync(mirror, { recursive: true });
      copyFileSync(join(dir, `${PREFIX}_${version}_linux_amd64.zip`), join(mirror, `${PREFIX}_${version}_linux_amd64.zip`));
      writeFileSync(join(config, 'empty.tfrc'), '');
      const { port } = server.address() as AddressInfo;
      writeFileSync(
        join(config, 'main.tf'),
        `terraform {
  required_providers {
    agentplatform = { source = "agentplatform/agentplatform", version = "${version}" }
  }
}

provider "agentplatform" {
  control_plane_url = "http://127.0.0.1:${port}"
  api_key           = "release-test-key"
  max_retries       = 0
}

data "agentplatform_sandbox_templates" "all" {}
`,
      );
      const env = { PATH: bareBin, HOME: config, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: join(config, 'empty.tfrc'), TF_IN_AUTOMATION: '1' };
      const terraform = (args: string[]) => collect(spawn('terraform', args, { cwd: config, env, stdio: ['ignore', 'pipe', 'pipe'] }));
      const init = await terraform(['init', '-input=false', '-no-color']);
      expect(init.stderr).toBe('');
      expect(init.code).toBe(0);
      const { archives } = JSON.parse(readFileSync(join(dir, `${version}.json`), 'utf8')) as { archives: Record<string, { hashes: string[] }> };
      const h1 = archives.linux_amd64!.hashes.find((hash) => hash.startsWith('h1:'))!;
      expect(readFileSync(join(config, '.terraform.lock.hcl'), 'utf8')).toContain(`"${h1}"`);
      const plan = await terraform(['plan', '-input=false', '-no-color']);
      expect(plan.code).toBe(1);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]!['user-agent']).toMatch(new RegExp(`^terraform-provider-agentplatform/${version.replace(/\./g, '\\.')} terraform/\\d+\\.\\d+\\.\\d+`));
    } finally {
      server.close();
    }
  });
});
