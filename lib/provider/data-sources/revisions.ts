/**
 * `agentplatform_revisions`: the revisions of a deployment, newest first, as the control plane lists them: one page
 * (`limit`, `offset`) or, with `all`, every page from `offset` on.
 */
import type { Revision, RevisionStatus } from '../../api/schemas/control-plane';
import { LIST_LIMIT, REVISION_STATUSES } from '../../api/schemas/control-plane-constants';
import { DiagnosticError, attr, defineDataSource, defineSchema, element, type DataSourceReadRequest, type SchemaModel } from '../framework';
import { isUuid } from '../../api/ids';

const computedString = (description: string) => attr.string({ computed: true, description });

/** The schema of `agentplatform_revisions`. */
export const revisionsSchema = defineSchema({
  description: 'The revisions of a deployment, newest first: one page of them, or all of them with `all = true`.',
  attributes: {
    // spec: list_revisions, `deployment_id` is a uuid
    deployment_id: attr.string({
      required: true,
      validate: (v: string) => (isUuid(v) ? undefined : `must be a deployment id (a UUID); got ${JSON.stringify(v)}.`),
      description: 'The deployment, e.g. `agentplatform_deployment.agent.id`.',
    }),
    // spec: list_revisions, `status` is a list of revision statuses (Revision status: its states)
    status: attr.list(element.string, {
      optional: true,
      validateElement: (s: string) =>
        (REVISION_STATUSES as readonly string[]).includes(s) ? undefined : `must be a revision status (${REVISION_STATUSES.join(', ')}); got ${JSON.stringify(s)}.`,
      description: 'Only revisions in one of these statuses, e.g. `["DEPLOYED"]`.',
    }),
    remote_reconciled: attr.bool({ optional: true, description: 'Only revisions whose state has (`true`) or has not (`false`) been applied to the serving side.' }),
    limit: attr.number({
      optional: true,
      integer: true,
      min: LIST_LIMIT.min,
      max: LIST_LIMIT.max,
      description: `Revisions per page. Default: ${LIST_LIMIT.default}, or ${LIST_LIMIT.max} with \`all\`.`,
    }),
    offset: attr.number({ optional: true, integer: true, min: 0, description: 'Revisions to skip first. Default: 0.' }),
    all: attr.bool({ optional: true, description: 'Read every page from `offset` on, `limit` revisions per request. Default: `false` (one page).' }),
    revisions: attr.listNested(
      {
        id: computedString('Revision id.'),
        status: computedString(`One of ${REVISION_STATUSES.map((s) => `\`${s}\``).join(', ')}, or a status the platform added since.`),
        source: computedString('`github` or `external_docker`.'),
        source_revision_config: attr.object(
          {
            repo_ref: computedString('Branch, tag or commit built (`github`).'),
            graph_config_path: computedString('Graph configuration path (`github`).'),
            image_uri: computedString('Container image (`external_docker`).'),
            repo_commit_sha: computedString('Commit built (`github`).'),
          },
          { computed: true, description: 'What the revision deploys.' },
        ),
        created_at: computedString('When the revision was created (RFC 3339).'),
        updated_at: computedString('When its status last changed (RFC 3339).'),
      },
      { computed: true, description: 'The revisions, newest first.' },
    ),
  },
});

/** The attributes of `agentplatform_revisions`. */
export type RevisionsModel = SchemaModel<typeof revisionsSchema>;

async function read({ config, ctx, signal }: DataSourceReadRequest<typeof revisionsSchema>): Promise<RevisionsModel> {
  const client = ctx.controlPlane();
  const query = {
    ...(config.status ? { status: config.status as RevisionStatus[] } : {}),
    ...(config.remote_reconciled !== null ? { remoteReconciled: config.remote_reconciled } : {}),
    ...(config.limit !== null ? { limit: config.limit } : {}),
    ...(config.offset !== null ? { offset: config.offset } : {}),
  };
  const found: Revision[] = [];
  try {
    if (config.all) {
      for await (const revision of client.iterateRevisions(config.deployment_id, query, { signal })) found.push(revision);
    } else {
      found.push(...(await client.listRevisions(config.deployment_id, query, { signal })).resources);
    }
  } catch (err) {
    if ((err as { status?: number }).status === 404) {
      throw new DiagnosticError('Deployment not found', `There is no deployment ${config.deployment_id} in this workspace.`, 'deployment_id');
    }
    throw err;
  }
  return { ...config, revisions: found.map(toModel) };
}

function toModel(r: Revision): NonNullable<RevisionsModel['revisions']>[number] {
  const c = r.source_revision_config;
  return {
    id: r.id,
    status: r.status,
    source: r.source,
    source_revision_config: {
      repo_ref: c.repo_ref ?? null,
      graph_config_path: c.graph_config_path ?? null,
      image_uri: c.image_uri ?? null,
      repo_commit_sha: c.repo_commit_sha ?? null,
    },
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export default defineDataSource({ typeName: 'agentplatform_revisions', schema: revisionsSchema, read });
