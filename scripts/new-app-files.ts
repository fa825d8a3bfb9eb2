/**
 * The files of a new app (`npm run new-app`), for each flavour: CDK for Terraform (`cdktf`) and CDK Terrain
 * (`cdktn`). Every version is pinned, so that an app made today installs the same tree tomorrow.
 */

import type { Flavour } from './build-packages';

export type { Flavour };

/** What differs between the flavours. */
interface FlavourSpec {
  /** The core library the app imports `App` and `TerraformStack` from. */
  readonly core: string;
  /** The CLI package; its command has the core library's name. */
  readonly cli: string;
  readonly coreVersion: string;
  readonly constructsVersion: string;
  /** The construct package of this flavour. */
  readonly constructsPackage: string;
  /** Type definitions of the Node.js the flavour's CLI runs on (the one cdktn-cli itself installs, for cdktn). */
  readonly nodeTypesVersion: string;
  /** The Node.js versions the CLI runs on, when it says so. */
  readonly engines?: string;
}

export const FLAVOURS: Readonly<Record<Flavour, FlavourSpec>> = {
  cdktf: {
    core: 'cdktf',
    cli: 'cdktf-cli',
    coreVersion: '0.21.0',
    constructsVersion: '10.4.2',
    constructsPackage: '@agentplatform/cdktf',
    nodeTypesVersion: '20.19.43',
  },
  cdktn: {
    core: 'cdktn',
    cli: 'cdktn-cli',
    coreVersion: '0.24.0',
    // cdktn needs constructs >= 10.6 < 10.8; 10.6.0 is the one cdktn-cli depends on, so the app holds one copy
    constructsVersion: '10.6.0',
    constructsPackage: '@agentplatform/cdktn',
    nodeTypesVersion: '22.20.1',
    engines: '>=22.19',
  },
};

export const TYPESCRIPT_VERSION = '5.9.3';

/** A name npm accepts for the app, from its folder's name. */
export function appPackageName(folderName: string): string {
  const name = folderName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, 214);
  return name || 'agents-app';
}

/** The app's files, by path inside the app. `tarball` is the construct package's file name under `vendor/`. */
export function appFiles(flavour: Flavour, name: string, tarball: string): Record<string, string> {
  const spec = FLAVOURS[flavour];
  const packageJson = {
    name,
    version: '0.1.0',
    private: true,
    description: `Agent deployments and trace exports as code (${spec.core}).`,
    ...(spec.engines ? { engines: { node: spec.engines } } : {}),
    scripts: {
      build: 'tsc',
      synth: `${spec.core} synth`,
      deploy: `${spec.core} deploy`,
      diff: `${spec.core} diff`,
      destroy: `${spec.core} destroy`,
    },
    dependencies: {
      [spec.constructsPackage]: `file:vendor/${tarball}`,
      [spec.core]: spec.coreVersion,
      constructs: spec.constructsVersion,
    },
    devDependencies: {
      '@types/node': spec.nodeTypesVersion,
      [spec.cli]: spec.coreVersion,
      typescript: TYPESCRIPT_VERSION,
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'commonjs',
      moduleResolution: 'node',
      lib: ['ES2022'],
      types: ['node'],
      strict: true,
      noImplicitReturns: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      esModuleInterop: true,
      skipLibCheck: true,
      outDir: 'dist',
      rootDir: '.',
    },
    include: ['**/*.ts'],
    exclude: ['node_modules', 'dist', 'cdktf.out'],
  };
  const cdktfJson = {
    language: 'typescript',
    // type-checked and compiled by the app's own TypeScript (`npm run build` is `tsc`), then run
    app: 'npm run --silent build && node dist/main.js',
    projectId: name,
    sendCrashReports: 'false',
    terraformProviders: [],
    terraformModules: [],
    context: {},
  };
  return {
    'package.json': json(packageJson),
    'tsconfig.json': json(tsconfig),
    'cdktf.json': json(cdktfJson),
    'main.ts': mainTs(spec),
    '.gitignore': ['node_modules/', 'dist/', 'cdktf.out/', '.terraform/', '*.tfstate', '*.tfstate.*', ''].join('\n'),
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function mainTs(spec: FlavourSpec): string {
  return `/**
 * An agent deployment, an export destination on an S3-compatible server and a daily export of the agent's traces.
 *
 * Set where \`${spec.core} deploy\` runs:
 *   AGENTPLATFORM_API_KEY            the platform's API key (the local platform prints its dev key)
 *   AGENTPLATFORM_CONTROL_PLANE_URL  e.g. http://127.0.0.1:8123 for the local platform
 *   AGENTPLATFORM_TRACING_URL        the same address for the local platform
 *   TF_VAR_tracing_project_id        id of the tracing project whose runs are exported
 *   TF_VAR_export_start              start of the daily schedule (UTC, ISO 8601), e.g. tomorrow at midnight
 *   TF_VAR_s3_endpoint               address of the S3 server, e.g. http://127.0.0.1:4568
 *   TF_VAR_s3_secret_access_key      its secret key (write-only: never in the plan or the state)
 *   TF_VAR_s3_bucket                 optional, default agent-traces
 *   TF_VAR_s3_access_key_id          optional, default S3RVER (the local platform's S3 server)
 */
import { App, TerraformOutput, TerraformStack, TerraformVariable } from '${spec.core}';
import type { Construct } from 'constructs';
import {
  AgentPlatformProvider,
  Deployment,
  DeploymentSource,
  DestinationCredentials,
  DestinationTarget,
  Duration,
  ExportDestination,
  ScheduledExport,
} from '${spec.constructsPackage}';

class AgentsStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // the provider's settings come from the AGENTPLATFORM_* variables
    new AgentPlatformProvider(this, 'agentplatform');

    const variable = (name: string, description: string, options: { default?: string; secret?: boolean } = {}) => {
      const v = new TerraformVariable(this, name, { type: 'string', description, default: options.default, sensitive: options.secret });
      // an ephemeral variable keeps the secret out of the plan and the state as well
      if (options.secret) v.addOverride('ephemeral', true);
      return v.stringValue;
    };

    const agent = new Deployment(this, 'Agent', {
      name: 'my-agent',
      source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/my-agent', ref: 'main' }),
      resources: { minScale: 1, maxScale: 2 },
    });

    const destination = new ExportDestination(this, 'Destination', {
      displayName: 'trace archive',
      target: DestinationTarget.s3({
        bucketName: variable('s3_bucket', 'Bucket the Parquet files go to.', { default: 'agent-traces' }),
        prefix: 'agent-traces',
        endpointUrl: variable('s3_endpoint', 'Address of the S3-compatible server.'),
        credentials: DestinationCredentials.fromValues({
          accessKeyId: variable('s3_access_key_id', 'Access key of the S3 server.', { default: 'S3RVER' }),
          secretAccessKey: variable('s3_secret_access_key', 'Secret of the access key.', { secret: true }),
        }),
      }),
    });

    const daily = new ScheduledExport(this, 'Daily', {
      destination,
      tracingProjectId: variable('tracing_project_id', 'Id of the tracing project to export.'),
      start: variable('export_start', 'Start of the daily schedule (UTC, ISO 8601).'),
      every: Duration.hours(24),
      fields: ['id', 'trace_id', 'name', 'run_type', 'start_time', 'end_time', 'status', 'total_tokens', 'total_cost'],
      cancelSpawnedOnDestroy: true,
    });

    new TerraformOutput(this, 'deployment_id', { value: agent.deploymentId });
    new TerraformOutput(this, 'url', { value: agent.url });
    new TerraformOutput(this, 'destination_id', { value: destination.destinationId });
    new TerraformOutput(this, 'scheduled_export_id', { value: daily.exportId });
  }
}

const app = new App();
new AgentsStack(app, 'agents');
app.synth();
`;
}
