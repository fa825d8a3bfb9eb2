/**
 * The agentplatform provider for cdktf stacks. Besides the provider block it installs the provider itself: at synth,
 * the launcher (or, from a provider release, the executable) goes into the stack directory's implied local mirror and
 * its checksums into `.terraform.lock.hcl`, so `cdktf deploy` needs no CLI configuration, no registry and no Go
 * toolchain.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Annotations, TerraformStack, type IStackSynthesizer, type ISynthesisSession } from 'cdktf';
import type { Construct } from 'constructs';
import { PROVIDER_ADDRESS, PROVIDER_VERSION } from '../provider/constants';
import { installProvider, terraformPlatform } from '../install/provider';
import { ReleaseError, installRelease, readRelease, releaseVersions, removePackedArchives, verifyArchives } from '../install/release';
import type { Duration } from './duration';
import { httpUrlProblem, positiveDurationProblem, wholeNumberProblem } from './checks';
import { Violations, isToken, messages } from './errors';
import { AgentplatformProvider } from './generated/provider';
import { warnOfSecretReferences } from './secret-references';

/** Props of {@link AgentPlatformProvider}; each setting left out is read from the environment where Terraform runs. */
export interface AgentPlatformProviderProps {
  /**
   * API key sent with every request. Prefer leaving it out: a literal key is written into `cdktf.out`.
   * @default the `AGENTPLATFORM_API_KEY` environment variable
   */
  readonly apiKey?: string;
  /**
   * Workspace to act in (`X-Tenant-Id`).
   * @default the `AGENTPLATFORM_TENANT_ID` environment variable, else the key's default workspace
   */
  readonly tenantId?: string;
  /**
   * Base URL of the control plane API (deployments).
   * @default the `AGENTPLATFORM_CONTROL_PLANE_URL` environment variable
   */
  readonly controlPlaneUrl?: string;
  /**
   * Base URL of the tracing API (bulk exports).
   * @default the `AGENTPLATFORM_TRACING_URL` environment variable
   */
  readonly tracingUrl?: string;
  /**
   * Time allowed for each HTTP request attempt.
   * @default Duration.seconds(30)
   */
  readonly requestTimeout?: Duration;
  /**
   * Retries of a failed request, 0 to 20: GET, PUT and DELETE on connection errors, timeouts, 408, 429 and 5xx; POST
   * and PATCH, which are not idempotent, only on 429, 503 and connection errors raised before the request was sent.
   * @default 3
   */
  readonly maxRetries?: number;
  /**
   * Alias of this provider configuration, for stacks with several (pass the provider to each construct).
   * @default no alias: the stack's default agentplatform provider
   */
  readonly alias?: string;
  /**
   * Install the provider (the launcher, or the executable of `providerRelease`) and the lock file into the stack
   * directory at synth. Turn it off when the provider comes from elsewhere (a mirror, a registry).
   * @default true
   */
  readonly installLauncher?: boolean;
  /**
   * Node.js executable the launcher runs the provider with: a path of this machine, which then ends up in the lock
   * file's hash (the same on every machine only when they all have Node.js there).
   * @default `node` on the `PATH` terraform runs with (`AGENTPLATFORM_NODE` overrides it when set)
   */
  readonly nodePath?: string;
  /**
   * A provider release directory, as `npm run release:provider` writes it (`dist/release/<version>/`, holding this
   * package's version; a relative path is taken from the directory the app runs in). When given, the synth installs the release's executable, which needs no Node.js, instead of
   * the launcher: the zips of `providerPlatforms` go into the stack directory's implied local mirror, and the
   * release's hashes into the lock file.
   * @default none: the launcher is installed
   */
  readonly providerRelease?: string;
  /**
   * The platforms (`<os>_<arch>`, e.g. `linux_amd64`) whose executable is installed from `providerRelease`: each
   * zip is about 40 MB, so only the machines that run terraform on the synthesized stack need one.
   * @default the platform of the machine that synthesizes
   */
  readonly providerPlatforms?: string[];
}

/** What a stack's synthesizer installs: the launcher, or a release's executables. */
type Installation = { readonly nodePath: string | undefined } | { readonly release: string; readonly platforms: readonly string[] };

/** Stacks whose synthesizer already installs the provider (several aliased providers share one installation). */
const INSTALLING = new WeakSet<TerraformStack>();

/**
 * Wraps a stack's synthesizer: after the stack's JSON is written, installs the provider into the implied local
 * mirror of the stack's working directory (`cdktf.out/stacks/<stack>`) and merges the lock file there. cdktf runs
 * `terraform init` in that directory, and keeps both across synths.
 */
class ProviderInstallingSynthesizer implements IStackSynthesizer {
  constructor(
    private readonly stack: TerraformStack,
    private readonly inner: IStackSynthesizer,
    private readonly installation: Installation,
  ) {}

  synthesize(session: ISynthesisSession): void {
    this.inner.synthesize(session);
    const dir = join(session.outdir, session.manifest.forStack(this.stack).workingDirectory);
    let lockFilePath: string | undefined;
    if ('release' in this.installation) {
      ({ lockFilePath } = installRelease({ dir, release: this.installation.release, version: PROVIDER_VERSION, platforms: this.installation.platforms }));
    } else {
      // zips of an earlier synth from a release: terraform would find them beside the launcher
      removePackedArchives(dir, PROVIDER_VERSION);
      const { nodePath } = this.installation;
      ({ lockFilePath } = installProvider({ dir, ...(nodePath ? { nodePath } : {}) }));
    }
    if (lockFilePath) pinVersionConstraint(lockFilePath, PROVIDER_VERSION);
  }
}

/**
 * Records the stack's version constraint (the exact version, as `required_providers` says) in the provider's lock
 * entry, as `terraform init` would. cdktf compares it with `required_providers` before deploying; without it cdktf
 * runs `terraform providers lock`, which asks the registry and fails offline.
 */
function pinVersionConstraint(lockFilePath: string, version: string): void {
  const text = readFileSync(lockFilePath, 'utf8');
  const start = text.indexOf(`provider "${PROVIDER_ADDRESS}" {\n`);
  const end = text.indexOf('\n}', start);
  if (start < 0 || end < 0) return;
  const lines = text
    .slice(start, end)
    .split('\n')
    .filter((line) => !/^\s*constraints\s*=/.test(line));
  lines.splice(lines.findIndex((line) => /^\s*version\s*=/.test(line)) + 1, 0, `  constraints = "${version}"`);
  const pinned = `${text.slice(0, start)}${lines.join('\n')}${text.slice(end)}`;
  if (pinned !== text) writeFileSync(lockFilePath, pinned);
}

/**
 * The `agentplatform` provider block (`required_providers` source `agentplatform/agentplatform`), and at synth the
 * provider's offline installation into the stack directory.
 *
 * ```ts
 * new AgentPlatformProvider(this, 'agentplatform'); // settings from AGENTPLATFORM_* where Terraform runs
 * ```
 */
export class AgentPlatformProvider extends AgentplatformProvider {
  constructor(scope: Construct, id: string, props: AgentPlatformProviderProps = {}) {
    const violations = new Violations();
    // no platform input: the addresses the provider itself calls, which only an http(s) URL can be
    for (const prop of ['controlPlaneUrl', 'tracingUrl'] as const) violations.check(prop, props[prop], httpUrlProblem);
    violations.check('maxRetries', props.maxRetries, wholeNumberProblem(0, 20));
    violations.check('requestTimeout', props.requestTimeout, positiveDurationProblem);
    super(scope, id, {
      apiKey: props.apiKey,
      tenantId: props.tenantId,
      controlPlaneUrl: props.controlPlaneUrl,
      tracingUrl: props.tracingUrl,
      requestTimeout: props.requestTimeout?.toTerraformString(),
      maxRetries: props.maxRetries,
      alias: props.alias,
    });
    if (props.installLauncher === false && props.providerRelease !== undefined) violations.add('providerRelease', messages.releaseNotInstalled());
    const installation = props.installLauncher === false ? undefined : checkInstallation(props, violations);
    violations.throwIfAny('AgentPlatformProvider', this);
    if (props.apiKey !== undefined && !isToken(props.apiKey)) Annotations.of(this).addWarning(messages.literalApiKey());
    warnOfSecretReferences(this, () => [['apiKey', props.apiKey]]);
    if (installation) installAtSynth(TerraformStack.of(this), installation);
  }
}

/**
 * What the synth will install, with the release checked now (its documents, and the zips of the chosen platforms
 * against their hashes), so that a release that is not whole stops the synth with the prop to fix.
 */
function checkInstallation(props: AgentPlatformProviderProps, violations: Violations): Installation | undefined {
  const { providerRelease: release, providerPlatforms } = props;
  if (release === undefined) {
    if (providerPlatforms !== undefined) violations.add('providerPlatforms', messages.platformsWithoutRelease());
    return { nodePath: props.nodePath };
  }
  if (props.nodePath !== undefined) violations.add('nodePath', messages.nodePathWithRelease());
  if (isToken(release)) {
    violations.add('providerRelease', messages.releaseToken());
    return undefined;
  }
  const platforms = providerPlatforms ?? [terraformPlatform()];
  if (isToken(platforms)) {
    violations.add('providerPlatforms', messages.platformsToken());
    return undefined;
  }
  if (platforms.length === 0) violations.add('providerPlatforms', messages.empty());
  try {
    const versions = releaseVersions(release);
    if (!versions.includes(PROVIDER_VERSION)) {
      violations.add('providerRelease', messages.releaseVersion(release, versions, PROVIDER_VERSION));
      return undefined;
    }
    const found = readRelease(release, PROVIDER_VERSION);
    const listed = found.archives.map((a) => a.platform);
    const missing = platforms.filter((p) => !listed.includes(p));
    if (missing.length > 0) violations.add('providerPlatforms', messages.releasePlatforms(release, missing, listed));
    else verifyArchives(found, platforms);
  } catch (err) {
    if (!(err instanceof ReleaseError)) throw err;
    violations.add('providerRelease', err.message);
  }
  return { release: resolve(release), platforms };
}

function installAtSynth(stack: TerraformStack, installation: Installation): void {
  if (INSTALLING.has(stack)) return;
  INSTALLING.add(stack);
  stack.synthesizer = new ProviderInstallingSynthesizer(stack, stack.synthesizer, installation);
}
