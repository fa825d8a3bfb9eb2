/**
 * The attributes of `agentplatform_deployment`, their descriptions and timeouts, and the model the handlers see.
 */
import { DEPLOYMENT_SOURCES, DEPLOYMENT_TYPES } from '../../../api/schemas/control-plane-constants';
import { attr, defineSchema, durationProblem, element, timeoutsAttribute, type SchemaModel } from '../../framework';
import { sameUrl } from '../../../api/urls';
import { REPO_ACCESS, userInfoProblem } from './checks';
import { tenantIdAttribute } from '../shared/workspace';
import { DEFAULT_SMOKE_TEST_TIMEOUT, inputProblem } from './smoke-test-run';

/** The attributes of `agentplatform_deployment` as handlers see them. */
export type DeploymentModel = SchemaModel<typeof deploymentSchema>;

/** The schema's type, as the handlers' requests take it. */
export type DeploymentSchema = typeof deploymentSchema;

/** Attributes whose change makes the platform build and deploy a new revision (and `secrets_version`, with `secrets`). */
export const REVISION_INPUTS = ['repo_ref', 'graph_config_path', 'image_uri'] as const;

/** The `timeouts` of the resource: creates and updates wait for DEPLOYED, a delete until the deployment is gone. */
export const DEPLOYMENT_TIMEOUTS = timeoutsAttribute({ create: '30m', update: '30m', delete: '15m' });
const timeouts = DEPLOYMENT_TIMEOUTS;

/** Within JavaScript's safe integers, where a whole number is still exact as the JSON number the API takes. */
const EXACT = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;

/** The attributes of the post-deploy check (`smoke_test.ts` runs it), spread into the schema. */
const SMOKE_TEST_ATTRIBUTES = {
  smoke_test: attr.object(
    {
      assistant_id: attr.string({ required: true, description: 'Assistant the check runs: an assistant id, or a graph id for its default assistant (e.g. `chat`).' }),
      input: attr.string({
        required: true,
        validate: inputProblem,
        description: 'Input of the run, a JSON object as text, e.g. `jsonencode({ messages = [{ role = "user", content = "ping" }] })`.',
      }),
      expect_contains: attr.string({
        optional: true,
        description: 'Text the final answer (the last message\'s content, else the final values as JSON) must contain. Default: any answer of a run that succeeds passes.',
      }),
      timeout: attr.string({ optional: true, validate: durationProblem, description: `How long the run may take, e.g. \`30s\`. Default: \`${DEFAULT_SMOKE_TEST_TIMEOUT}\`.` }),
    },
    {
      optional: true,
      description:
        'A run the provider streams from the deployment after each apply that leaves a new revision `DEPLOYED`; a failure fails the apply (see Behaviour). Default: none. A change runs it again, never replacing the deployment.',
    },
  ),
  smoke_test_revision_id: attr.string({
    computed: true,
    useStateForUnknown: true,
    description: 'The revision `smoke_test` last passed on. Unknown in a plan when the check will run; null when it has not passed, so the next apply runs it.',
  }),
} as const;

/** The schema of `agentplatform_deployment`. */
export const deploymentSchema = defineSchema({
  description:
    'An agent deployment: the platform builds it from a GitHub repository (`github`) or runs a container image ' +
    '(`external_docker`), as a series of revisions. Create and update wait until the latest revision is `DEPLOYED` ' +
    '(see `wait_for_deployed`).',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'The deployment id (a UUID); `terraform import` takes it.' }),
    name: attr.string({
      required: true,
      requiresReplace: true,
      description: 'Name, unique in the workspace, e.g. `support-agent`; the plan warns of a form the platform may refuse.',
    }),
    // spec: Revision, `source` is `github` or `external_docker`
    source: attr.string({
      required: true,
      requiresReplace: true,
      oneOf: DEPLOYMENT_SOURCES,
      description: 'Where the code comes from: `github` (built from `repo_url`) or `external_docker` (runs `image_uri`).',
    }),
    integration_id: attr.string({ optional: true, requiresReplace: true, description: 'GitHub integration that grants the platform access to the repository (`github` only).' }),
    repo_url: attr.string({ optional: true, requiresReplace: true, sameValue: sameUrl, validate: (value) => userInfoProblem(value, REPO_ACCESS), description: 'URL of the git repository (`github`: required).' }),
    deployment_type: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      requiresReplace: true,
      description:
        `Kind of deployment, e.g. ${DEPLOYMENT_TYPES.map((t) => `\`${t}\``).join(', ')}. Sent only when set; left out, the platform chooses, ` +
        'and its choice is read after apply.',
    }),
    repo_ref: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'Branch, tag (`refs/tags/...`) or commit to deploy (`github` only). Default: the platform\'s (the local platform\'s: `main`), also once taken out of the configuration. A change deploys a new revision.',
    }),
    graph_config_path: attr.string({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description: 'Path of the graph configuration in the repository (`github` only). Default: the platform\'s (the local platform\'s: `langgraph.json`), also once taken out of the configuration. A change deploys a new revision.',
    }),
    image_uri: attr.string({ optional: true, description: 'Container image to run (`external_docker`: required). A change deploys a new revision.' }),
    build_on_push: attr.bool({
      optional: true,
      computed: true,
      useStateForUnknown: true,
      description:
        'Build and deploy a new revision on every push to `repo_ref` (`github` only; not when `repo_ref` is a tag). Sent only when set; ' +
        'left out, the platform chooses, and its choice is read after apply.',
    }),
    custom_url: attr.string({ optional: true, sameValue: sameUrl, validate: (value) => userInfoProblem(value), description: 'URL the deployment is served at, instead of the platform\'s own.' }),
    resource_spec: attr.object(
      {
        // the spec shows nothing of resource_spec: a fraction is warned of at plan (checks.ts); the bounds are
        // no platform rule but the numbers a JSON number carries exactly, as the client writes it
        min_scale: attr.number({ optional: true, ...EXACT, description: 'Fewest replicas (0 lets it scale to zero).' }),
        max_scale: attr.number({ optional: true, ...EXACT, description: 'Most replicas; at least `min_scale`.' }),
        cpu: attr.number({ optional: true, description: 'CPUs per replica, e.g. `0.5` or `2`.' }),
        memory_mb: attr.number({ optional: true, ...EXACT, description: 'Memory per replica, in MiB.' }),
      },
      { optional: true, description: 'Scaling and size of the replicas; what is left out is the platform\'s default.' },
    ),
    secrets: attr.map(element.string, {
      optional: true,
      writeOnly: true,
      description:
        'Environment variables of the deployment, by name (e.g. `OPENAI_API_KEY`); the platform never returns their values. ' +
        'Left out, the deployment\'s secrets stay as they are. See [Behaviour](#behaviour) for when they are sent.',
    }),
    secrets_version: attr.number({
      optional: true,
      integer: true,
      min: 1,
      description: 'Change it (for example, increment it) to send `secrets` again; changed secrets deploy a new revision.',
    }),
    secret_names: attr.list(element.string, {
      computed: true,
      useStateForUnknown: true,
      description:
        'Names of the secrets the deployment has on the platform (never their values), sorted. Names that differ from ' +
        '`secrets` send them again: see [Behaviour](#behaviour).',
    }),
    wait_for_deployed: attr.bool({
      optional: true,
      computed: true,
      default: true,
      description:
        'Wait, on create and on changes that deploy a new revision, until that revision is `DEPLOYED`; a failed revision ' +
        'fails the apply. See [Behaviour](#behaviour).',
    }),
    timeouts,
    latest_revision_id: attr.string({ computed: true, useStateForUnknown: true, description: 'The newest revision.' }),
    active_revision_id: attr.string({
      computed: true,
      useStateForUnknown: true,
      description: 'The revision that serves: the newest once it is `DEPLOYED`, the one before while a newer one builds or after it failed (null before the first).',
    }),
    revision_status: attr.string({
      computed: true,
      useStateForUnknown: true,
      description:
        'Status of the newest revision, e.g. `DEPLOYED` or `BUILD_FAILED`, or one the platform added since, as it names it. ' +
        'A failed revision is deployed again by the next apply (see [Behaviour](#behaviour)).',
    }),
    repo_commit_sha: attr.string({ computed: true, useStateForUnknown: true, description: 'Commit the newest revision was built from (`github`).' }),
    url: attr.string({ computed: true, useStateForUnknown: true, sameValue: sameUrl, description: 'Where the deployment is served: `custom_url`, or the platform\'s URL for it.' }),
    created_at: attr.string({ computed: true, useStateForUnknown: true, description: 'When the deployment was created (RFC 3339).' }),
    tenant_id: tenantIdAttribute('deployment'),
    ...SMOKE_TEST_ATTRIBUTES,
  },
});
