/**
 * The local example: an agent deployment, a destination on an S3-compatible store and a daily export of the
 * deployment's tracing project, all against the local platform (`npm run local`) and its in-process S3
 * server. No AWS account, no registry: `cdktf deploy` finds the provider in the stack directory.
 */
import { TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import {
  AgentPlatformProvider,
  Deployment,
  DeploymentRevisions,
  DeploymentSource,
  DestinationCredentials,
  DestinationTarget,
  Duration,
  ExportDestination,
  Filter,
  SandboxTemplates,
  ScheduledExport,
} from '../../lib/constructs';

/** The deployment's name; the local platform traces its runs into the tracing project of the same name. */
export const LOCAL_AGENT_NAME = 'demo-agent';

/** The example's input variables (set them with `TF_VAR_<name>` or `--var <name>=...`). */
export const LOCAL_VARIABLES = {
  tracingProjectId: 'tracing_project_id',
  s3Endpoint: 's3_endpoint',
  s3Bucket: 's3_bucket',
  s3AccessKeyId: 's3_access_key_id',
  s3SecretAccessKey: 's3_secret_access_key',
  exportStart: 'export_start',
} as const;

/** The stack: the provider's settings come from `AGENTPLATFORM_*` environment variables. */
export class LocalStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new AgentPlatformProvider(this, 'agentplatform');

    const variable = (name: string, description: string, more: { default?: string; secret?: boolean } = {}) => {
      const v = new TerraformVariable(this, name, { type: 'string', description, default: more.default, sensitive: more.secret });
      // Secrets go to write-only attributes only: an ephemeral variable keeps them out of plan and state too.
      if (more.secret) v.addOverride('ephemeral', true);
      return v.stringValue;
    };
    const projectId = variable(LOCAL_VARIABLES.tracingProjectId, `Id of the tracing project "${LOCAL_AGENT_NAME}" (POST /api/v1/sessions).`);
    const endpoint = variable(LOCAL_VARIABLES.s3Endpoint, 'Address of the S3-compatible server, e.g. http://127.0.0.1:4568.');
    const bucketName = variable(LOCAL_VARIABLES.s3Bucket, 'Bucket the Parquet files go to.', { default: 'agent-traces' });
    const accessKeyId = variable(LOCAL_VARIABLES.s3AccessKeyId, 'Access key of the S3 server.', { default: 'S3RVER' });
    const secretAccessKey = variable(LOCAL_VARIABLES.s3SecretAccessKey, 'Secret of the access key; write-only, never in the state.', { secret: true });
    const exportStart = variable(LOCAL_VARIABLES.exportStart, 'Start of the daily export schedule (UTC), e.g. today at midnight.');

    const agent = new Deployment(this, 'Agent', {
      name: LOCAL_AGENT_NAME,
      source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/demo-agent', ref: 'main' }),
      resources: { minScale: 1, maxScale: 2 },
      timeouts: { create: Duration.minutes(5) },
    });
    const deployed = new DeploymentRevisions(this, 'DeployedRevisions', { deployment: agent, statuses: ['DEPLOYED'] });
    const templates = new SandboxTemplates(this, 'SandboxTemplates');

    const destination = new ExportDestination(this, 'Destination', {
      displayName: 'local trace archive',
      target: DestinationTarget.s3({
        bucketName,
        prefix: 'agent-traces',
        endpointUrl: endpoint,
        credentials: DestinationCredentials.fromValues({ accessKeyId, secretAccessKey }),
      }),
    });
    const daily = new ScheduledExport(this, 'Daily', {
      destination,
      tracingProjectId: projectId,
      start: exportStart,
      every: Duration.hours(24),
      fields: ['id', 'trace_id', 'parent_run_id', 'name', 'run_type', 'start_time', 'end_time', 'status', 'total_tokens', 'total_cost'],
      filter: Filter.eq('is_root', true),
      cancelSpawnedOnDestroy: true,
    });

    new TerraformOutput(this, 'deployment_id', { value: agent.deploymentId });
    new TerraformOutput(this, 'url', { value: agent.url });
    new TerraformOutput(this, 'revision_status', { value: agent.revisionStatus });
    new TerraformOutput(this, 'deployed_revision_id', { value: deployed.newestRevisionId });
    new TerraformOutput(this, 'first_sandbox_template', { value: templates.templates.get(0).name });
    new TerraformOutput(this, 'destination_id', { value: destination.destinationId });
    new TerraformOutput(this, 'scheduled_export_id', { value: daily.exportId });
  }
}
