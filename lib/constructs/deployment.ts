/**
 * `Deployment`: an agent deployment of the control plane, from a GitHub repository or a container image. The props
 * are checked at synth (every violation at once, tokens skipped); the deployment itself is the provider's
 * `agentplatform_deployment`, which waits until the latest revision is DEPLOYED.
 */
import { Annotations, Fn, Token, type TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import {
  DEPLOYMENT_NAME_MAX_LENGTH,
  DEPLOYMENT_NAME_PATTERN,
  MAX_SECRET_NAME_LENGTH,
  MAX_SECRETS,
  SECRET_NAME_PATTERN,
  isTagRef,
} from '../api/schemas/control-plane-constants';
import { booleanProblem, fractionProblem, numberProblem, positiveDurationProblem, unusualUrl, urlUserInfoProblem, wholeNumberProblem } from './checks';
import type { Duration } from './duration';
import { Assistant, type AssistantOptions } from './assistant';
import type { IDeployment } from './deployment-ref';
import { Violations, isToken, messages, warnIfProblem } from './errors';
import { Deployment as DeploymentResource, type DeploymentConfig } from './generated/deployment';
import { validateSecretReferences } from './secret-references';

/** Where a GitHub deployment's code is. */
export interface GitHubSourceProps {
  /** URL of the git repository, e.g. `https://github.com/acme/support-agent`; a change replaces the deployment. */
  readonly repoUrl: string;
  /**
   * GitHub integration that grants the platform access to the repository; a change replaces the deployment.
   * @default the workspace's default integration
   */
  readonly integrationId?: string;
  /**
   * Branch, tag (`refs/tags/...`) or commit to deploy; a change deploys a new revision.
   * @default the platform's (the local platform's: `main`)
   */
  readonly ref?: string;
  /**
   * Path of the graph configuration in the repository; a change deploys a new revision.
   * @default the platform's (the local platform's: `langgraph.json`)
   */
  readonly graphConfigPath?: string;
  /**
   * Build and deploy a new revision on every push to `ref` (never with a tag: a tag does not move).
   * @default the platform's choice (nothing is sent)
   */
  readonly buildOnPush?: boolean;
}

/** The source attributes of the resource, as a {@link DeploymentSource} sets them. */
type DeploymentSourceConfig =
  | { readonly kind: 'github'; readonly props: GitHubSourceProps }
  | { readonly kind: 'external_docker'; readonly imageUri: string };

/** Where a deployment's code comes from: `DeploymentSource.github({...})` or `DeploymentSource.image(uri)`. */
export class DeploymentSource {
  /** Built by the platform from a GitHub repository. */
  static github(props: GitHubSourceProps): DeploymentSource {
    return new DeploymentSource({ kind: 'github', props });
  }

  /** A container image the platform runs as it is; a new image deploys a new revision. */
  static image(uri: string): DeploymentSource {
    return new DeploymentSource({ kind: 'external_docker', imageUri: uri });
  }

  private constructor(config: DeploymentSourceConfig) {
    this._config = config;
  }

  /**
   * What the source sets (jsii cannot type it in the other languages: only the constructs read it).
   * @internal
   */
  readonly _config: DeploymentSourceConfig;
}

/** Scaling and size of a deployment's replicas; what is left out is the platform's default. */
export interface DeploymentResources {
  /**
   * Fewest replicas (0 lets the deployment scale to zero).
   * @default the platform's
   */
  readonly minScale?: number;
  /**
   * Most replicas; at least `minScale`.
   * @default the platform's
   */
  readonly maxScale?: number;
  /**
   * CPUs per replica, e.g. `0.5` or `2`.
   * @default the platform's
   */
  readonly cpu?: number;
  /**
   * Memory per replica, in MiB.
   * @default the platform's
   */
  readonly memoryMb?: number;
}

/** Time limits of a deployment's operations; when one runs out, the apply fails naming the last status seen. */
export interface DeploymentTimeouts {
  /**
   * How long a create waits for the first revision to be DEPLOYED.
   * @default Duration.minutes(30)
   */
  readonly create?: Duration;
  /**
   * How long an update waits for its new revision to be DEPLOYED.
   * @default Duration.minutes(30)
   */
  readonly update?: Duration;
  /**
   * How long a destroy waits until the platform has removed the deployment.
   * @default Duration.minutes(15)
   */
  readonly delete?: Duration;
}

/** A post-deploy check: one run of the deployment's agent server after each new revision is DEPLOYED. */
export interface DeploymentSmokeTest {
  /** Assistant the check runs: an assistant id, or a graph id for its default assistant (e.g. `'chat'`). */
  readonly assistantId: string;
  /** Input of the run, e.g. `{ messages: [{ role: 'user', content: 'ping' }] }`; references may be inside it. */
  readonly input: { [key: string]: any };
  /**
   * Text the final answer (the last message's content, else the final values as JSON) must contain.
   * @default any answer of a run that succeeds passes
   */
  readonly expectContains?: string;
  /**
   * How long the run may take.
   * @default Duration.minutes(2)
   */
  readonly timeout?: Duration;
}

/** Props of {@link Deployment}. */
export interface DeploymentProps {
  /**
   * Name, unique in the workspace: a letter or digit, then letters, digits, `-` or `_`; at most 63 characters. A
   * change replaces the deployment.
   */
  readonly name: string;
  /** Where the code comes from. */
  readonly source: DeploymentSource;
  /**
   * Kind of deployment, e.g. `'prod'`, `'dev'`, `'dev_free'`, `'dev_zero'` or `'dev_free_zero'` (any kind the platform
   * takes: the spec does not close the list); a change replaces the deployment.
   * @default the platform's choice (nothing is sent)
   */
  readonly deploymentType?: string;
  /**
   * Scaling and size of the replicas.
   * @default the platform's defaults
   */
  readonly resources?: DeploymentResources;
  /**
   * Environment variables of the deployment by name, e.g. `{ OPENAI_API_KEY: openAiKey.value }`. Values must be
   * references (a sensitive `TerraformVariable`, an attribute of another resource), never literals: they would be
   * written into `cdktf.out`. They are write-only: the platform returns their names only, so an apply sends them
   * again when the deployment's names differ (changed outside Terraform, or a name added or removed here).
   * @default no secrets
   */
  readonly secrets?: Record<string, string>;
  /**
   * Change it (for example, increment it) to send `secrets` again; changed secrets deploy a new revision.
   * @default secrets are sent on create, and when the deployment's secret names differ from theirs
   */
  readonly secretsVersion?: number;
  /**
   * URL the deployment is served at, instead of the platform's own.
   * @default the platform's URL for it
   */
  readonly customUrl?: string;
  /**
   * Wait on create, and on changes that deploy a new revision, until that revision is DEPLOYED (a failed revision
   * fails the apply); `false` returns without waiting.
   * @default true
   */
  readonly waitForDeployed?: boolean;
  /**
   * Time limits of create, update and delete.
   * @default create 30 minutes, update 30 minutes, delete 15 minutes
   */
  readonly timeouts?: DeploymentTimeouts;
  /**
   * A run after each apply that leaves a new revision DEPLOYED; the apply fails when it errors, outlasts its timeout
   * or its answer lacks `expectContains`. A change runs it again, never replacing the deployment.
   * @default no check
   */
  readonly smokeTest?: DeploymentSmokeTest;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

class ImportedDeployment extends Construct implements IDeployment {
  constructor(
    scope: Construct,
    id: string,
    readonly deploymentId: string,
  ) {
    super(scope, id);
  }
}

/**
 * An agent deployment.
 *
 * ```ts
 * const agent = new Deployment(this, 'Agent', {
 *   name: 'support-agent',
 *   source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main', buildOnPush: true }),
 *   resources: { minScale: 1, maxScale: 3 },
 * });
 * new TerraformOutput(this, 'url', { value: agent.url });
 * ```
 */
export class Deployment extends Construct implements IDeployment {
  /** A deployment made elsewhere, by its id. */
  static fromDeploymentId(scope: Construct, id: string, deploymentId: string): IDeployment {
    return new ImportedDeployment(scope, id, deploymentId);
  }

  /** The deployment id (a UUID). */
  readonly deploymentId: string;
  /** The deployment's name: the `name` prop, as given. */
  readonly deploymentName: string;
  /** The newest revision's id. */
  readonly latestRevisionId: string;
  /** The id of the revision that serves: the newest once it is `DEPLOYED`, the one before while a newer one builds or after it failed. */
  readonly activeRevisionId: string;
  /** Status of the newest revision, e.g. `DEPLOYED`. */
  readonly revisionStatus: string;
  /** Where the deployment is served: `customUrl`, or the platform's URL for it. */
  readonly url: string;
  /** Commit the newest revision was built from (GitHub sources). */
  readonly repoCommitSha: string;
  /** The revision `smokeTest` last passed on; null when it has not passed (the next apply runs it). */
  readonly smokeTestRevisionId: string;
  /** The `agentplatform_deployment` resource, for escape hatches. */
  readonly resource: DeploymentResource;

  constructor(scope: Construct, id: string, props: DeploymentProps) {
    super(scope, id);
    const violations = new Violations();
    // the local platform's rules, which the spec does not state: warnings (see warnOfSource and checkSecrets too)
    warnIfProblem(this, 'name', props.name, (name) =>
      name.length <= DEPLOYMENT_NAME_MAX_LENGTH && DEPLOYMENT_NAME_PATTERN.test(name) ? undefined : messages.deploymentName(name, DEPLOYMENT_NAME_MAX_LENGTH),
    );
    const source = sourceAttributes(props.source._config, violations, this);
    // a whole object or map given as a token (a variable of object or map type) is checked by the provider at plan
    if (!isToken(props.resources)) checkResources(props.resources ?? {}, violations, this);
    if (!isToken(props.secrets)) checkSecrets(props.secrets ?? {}, violations, this);
    violations.check('customUrl', props.customUrl, urlUserInfoProblem);
    warnIfProblem(this, 'customUrl', props.customUrl, unusualUrl);
    for (const op of ['create', 'update', 'delete'] as const) violations.check(`timeouts.${op}`, props.timeouts?.[op], positiveDurationProblem);
    violations.check('secretsVersion', props.secretsVersion, wholeNumberProblem(1));
    violations.check('waitForDeployed', props.waitForDeployed, booleanProblem);
    violations.check('smokeTest.assistantId', props.smokeTest?.assistantId, (value) => (value.trim() === '' ? messages.emptyValue() : undefined));
    violations.check('smokeTest.timeout', props.smokeTest?.timeout, positiveDurationProblem);
    violations.throwIfAny('Deployment', this);
    if (props.secrets && (isToken(props.secrets) || Object.keys(props.secrets).length > 0) && props.secretsVersion === undefined) {
      Annotations.of(this).addWarning(messages.secretsWithoutVersion());
    }

    const timeouts = props.timeouts;
    this.resource = new DeploymentResource(this, 'Resource', {
      name: props.name,
      ...source,
      deploymentType: props.deploymentType,
      customUrl: props.customUrl,
      resourceSpec: props.resources && (isToken(props.resources) ? props.resources : { ...props.resources }),
      secrets: props.secrets,
      secretsVersion: props.secretsVersion,
      waitForDeployed: props.waitForDeployed,
      smokeTest: props.smokeTest && smokeTestAttribute(props.smokeTest),
      timeouts: timeouts && {
        create: timeouts.create?.toTerraformString(),
        update: timeouts.update?.toTerraformString(),
        delete: timeouts.delete?.toTerraformString(),
      },
      provider: props.provider,
    });
    validateSecretReferences(this, () =>
      isToken(props.secrets) ? [['secrets', props.secrets]] : Object.entries(props.secrets ?? {}).map(([name, value]) => [`secrets.${name}`, value] as const),
    );
    this.deploymentId = this.resource.id;
    this.deploymentName = props.name;
    this.latestRevisionId = this.resource.latestRevisionId;
    this.activeRevisionId = this.resource.activeRevisionId;
    this.revisionStatus = this.resource.revisionStatus;
    this.url = this.resource.url;
    this.repoCommitSha = this.resource.repoCommitSha;
    this.smokeTestRevisionId = this.resource.smokeTestRevisionId;
  }

  /** An assistant of one of this deployment's graphs, in this construct's scope. */
  addAssistant(id: string, options: AssistantOptions): Assistant {
    return new Assistant(this, id, { ...options, deployment: this });
  }
}

/** The `smoke_test` attribute: the input as JSON text, by `jsonencode` in Terraform when references are inside it. */
function smokeTestAttribute(check: DeploymentSmokeTest): NonNullable<DeploymentConfig['smokeTest']> {
  const text = isToken(check.input) ? undefined : JSON.stringify(check.input);
  return {
    assistantId: check.assistantId,
    input: text === undefined || Token.isUnresolved(text) ? Fn.jsonencode(check.input) : text,
    expectContains: check.expectContains,
    timeout: check.timeout?.toTerraformString(),
  };
}

type SourceAttributes = Pick<DeploymentConfig, 'source' | 'repoUrl' | 'integrationId' | 'repoRef' | 'graphConfigPath' | 'buildOnPush' | 'imageUri'>;

function sourceAttributes(config: DeploymentSourceConfig, violations: Violations, scope: Construct): SourceAttributes {
  if (config.kind === 'external_docker') {
    violations.check('source.imageUri', config.imageUri, (uri) => (uri.trim() === '' ? messages.emptyImage() : undefined));
    return { source: 'external_docker', imageUri: config.imageUri };
  }
  const github = config.props;
  violations.check('source.repoUrl', github.repoUrl, urlUserInfoProblem);
  warnIfProblem(scope, 'source.repoUrl', github.repoUrl, unusualUrl);
  // given but empty (an unset variable)
  for (const prop of ['ref', 'integrationId', 'graphConfigPath'] as const) {
    warnIfProblem(scope, `source.${prop}`, github[prop], (value) => (value.trim() === '' ? messages.emptyValue() : undefined));
  }
  // spec: SourceRevisionConfig, when `repo_ref` is a tag, `build_on_push` must be false
  if (github.buildOnPush === true && !isToken(github.ref) && isTagRef(github.ref)) {
    violations.add('source.buildOnPush', messages.tagWithBuildOnPush(github.ref!));
  }
  return {
    source: 'github',
    repoUrl: github.repoUrl,
    integrationId: github.integrationId,
    repoRef: github.ref,
    graphConfigPath: github.graphConfigPath,
    buildOnPush: github.buildOnPush,
  };
}

function checkResources(resources: DeploymentResources, violations: Violations, scope: Construct): void {
  for (const key of ['minScale', 'maxScale', 'cpu', 'memoryMb'] as const) violations.check(`resources.${key}`, resources[key], numberProblem);
  // the local platform's rules, which the spec does not state (it shows nothing of resource_spec): whole counts, bounds
  for (const key of ['minScale', 'maxScale', 'memoryMb'] as const) warnIfProblem(scope, `resources.${key}`, resources[key], fractionProblem);
  for (const [key, least, strictly] of [['minScale', 0, false], ['maxScale', 1, false], ['cpu', 0, true], ['memoryMb', 1, false]] as const) {
    warnIfProblem(scope, `resources.${key}`, resources[key], (value) =>
      typeof value === 'number' && (strictly ? value <= least : value < least) ? messages.belowLeast(value, least, strictly) : undefined,
    );
  }
  const { minScale: min, maxScale: max } = resources;
  if (min !== undefined && max !== undefined && !isToken(min) && !isToken(max) && min > max) {
    warnIfProblem(scope, 'resources.minScale', min, () => messages.minScaleAboveMax(min, max));
  }
}

function checkSecrets(secrets: Record<string, string>, violations: Violations, scope: Construct): void {
  const names = Object.keys(secrets);
  for (const name of names) {
    warnIfProblem(scope, `secrets.${name}`, name, (n) => (SECRET_NAME_PATTERN.test(n) ? undefined : messages.secretName(n)));
    warnIfProblem(scope, `secrets.${name}`, name, (n) => (n.length > MAX_SECRET_NAME_LENGTH ? messages.secretNameTooLong(n, MAX_SECRET_NAME_LENGTH) : undefined));
    if (!isToken(secrets[name])) violations.add(`secrets.${name}`, messages.plaintextSecret(`secrets.${name}`));
  }
  warnIfProblem(scope, 'secrets', names.length, (count) => (count > MAX_SECRETS ? messages.tooManySecrets(count, MAX_SECRETS) : undefined));
}
