/**
 * The GitOps example: an agent deployed from its GitHub repository on every push to main, its traces exported
 * every day to an S3 bucket made for them (public access blocked, encrypted, files expiring after 90 days), written
 * with an IAM user whose policy allows exactly the export permissions on the export prefix.
 *
 * Settings come from the environment where Terraform runs: AGENTPLATFORM_API_KEY and the platform URLs, the AWS
 * credentials, and the variables below (`TF_VAR_openai_api_key`, `TF_VAR_tracing_project_id`, `TF_VAR_export_start`).
 * The tracing project exists once the deployment has traced a run, or once made ahead with `POST /api/v1/sessions`
 * (`{"name": "support-agent"}`); `GET /api/v1/sessions?name=support-agent` gives its id.
 */
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import {
  AgentPlatformProvider,
  Deployment,
  DeploymentSource,
  DestinationTarget,
  Duration,
  ExportBucket,
  ExportDestination,
  Filter,
  ScheduledExport,
} from '../../lib/constructs';

/** The stack of the example. */
export class GitOpsStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    const region = new TerraformVariable(this, 'aws_region', { type: 'string', default: 'eu-west-1', description: 'Region of the export bucket.' });
    new AwsProvider(this, 'aws', { region: region.stringValue });
    new AgentPlatformProvider(this, 'agentplatform');

    const openAiKey = new TerraformVariable(this, 'openai_api_key', { type: 'string', sensitive: true, description: 'Passed to the agent as OPENAI_API_KEY.' });
    // Only write-only attributes take it: ephemeral keeps it out of plan and state as well.
    openAiKey.addOverride('ephemeral', true);
    const projectId = new TerraformVariable(this, 'tracing_project_id', {
      type: 'string',
      description: 'Id of the tracing project "support-agent" (the platform traces the deployment\'s runs there).',
    });
    // every whole day from here to now is exported at once when the schedule is made: start from today, say
    const exportStart = new TerraformVariable(this, 'export_start', {
      type: 'string',
      description: 'Start of the first day exported (ISO 8601, e.g. 2026-01-01T00:00:00Z); the days before it are not exported.',
    });

    const agent = new Deployment(this, 'Agent', {
      name: 'support-agent',
      source: DeploymentSource.github({ repoUrl: 'https://github.com/acme/support-agent', ref: 'main', buildOnPush: true }),
      resources: { minScale: 1, maxScale: 3, cpu: 1, memoryMb: 2048 },
      secrets: { OPENAI_API_KEY: openAiKey.stringValue },
      secretsVersion: 1,
    });

    const bucket = new ExportBucket(this, 'Traces', { prefix: 'agent-traces', lifecycle: { expireAfter: Duration.days(90) } });
    const destination = new ExportDestination(this, 'Destination', {
      displayName: 'support-agent traces',
      target: DestinationTarget.exportBucket(bucket),
    });
    new ScheduledExport(this, 'Daily', {
      destination,
      tracingProjectId: projectId.stringValue,
      start: exportStart.stringValue,
      every: Duration.hours(24),
      fields: ['id', 'trace_id', 'parent_run_id', 'name', 'run_type', 'start_time', 'end_time', 'status', 'total_tokens', 'total_cost'],
      filter: Filter.eq('is_root', true),
      cancelSpawnedOnDestroy: true,
    });

    new TerraformOutput(this, 'url', { value: agent.url });
    new TerraformOutput(this, 'revision', { value: agent.latestRevisionId });
    new TerraformOutput(this, 'bucket', { value: bucket.bucketName });
  }
}
