/**
 * The control plane surface (`/v2`, area A of the platform API). Every route authenticates first (401/403), then
 * validates path, query and body together (422), then looks the deployment up in the caller's workspace (404).
 */
import type { Context } from 'hono';
import { LIST_LIMIT, REVISION_STATUSES } from '../../api/schemas/control-plane';
import { apiKeyOf, requireApiKey } from '../auth';
import type { ModuleContext, PlatformModule } from '../module';
import { SANDBOX_TEMPLATE_MIGRATIONS, SANDBOX_TEMPLATE_SEALED_COLUMNS, SandboxTemplateInput, SandboxTemplateStore } from '../sandbox-templates';
import type { PlatformEnv } from '../platform-env';
import { UnchangedCache } from '../unchanged-cache';
import { readJsonBody, RequestValidator } from '../validation';
import { queryParam } from '../query-params';
import { RevisionPipeline } from './pipeline';
import { DEPLOYMENT_MIGRATIONS, DeploymentStore } from './store';
import { checkPatchRules, parsePatchBody, validateCreate } from './validation';
import { IdempotencyKeys, REPLAYED_HEADER, idempotencyBodyDigestMigration, idempotencyKeyOf, idempotencyKeysMigration } from '../idempotency';

/** The control plane's `Idempotency-Key` table (see idempotency.ts). */
const IDEMPOTENCY_TABLE = 'cp_idempotency_keys';

type Ctx = Context<PlatformEnv>;

/** GET revision with canonical (lower-case) ids; anything else is the app route's to judge. */
const REVISION_PATH = /^\/v2\/deployments\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/revisions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

const paging = (v: RequestValidator, c: Ctx) => ({
  limit: v.intQuery('limit', queryParam(c, 'limit'), {
    min: LIST_LIMIT.min,
    max: LIST_LIMIT.max,
    fallback: LIST_LIMIT.default,
  }),
  offset: v.intQuery('offset', queryParam(c, 'offset'), { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
});

function mountControlPlane(ctx: ModuleContext) {
  const pipeline = new RevisionPipeline(ctx.db, ctx.clock, ctx.timings, ctx.log);
  const store = new DeploymentStore(ctx.db, ctx.clock, ctx.secrets, pipeline);
  const templates = new SandboxTemplateStore(ctx.db, ctx.clock, ctx.secrets);
  const keys = new IdempotencyKeys(ctx.db, IDEMPOTENCY_TABLE, ctx.clock, ctx.secrets);
  const auth = requireApiKey(ctx.auth);
  const app = ctx.app;
  const tenantOf = (c: Ctx) => c.get('principal').tenantId;

  /** The deployment named by the path, after the path (and any other collected) problems were thrown. */
  const deploymentOf = (c: Ctx, v: RequestValidator) => {
    const id = v.uuidPath('deployment_id', c.req.param('deployment_id') ?? '');
    v.throwIfFailed();
    return store.require(tenantOf(c), id);
  };

  app.post('/v2/deployments', auth, async (c) => {
    const body = await readJsonBody(c);
    const input = validateCreate(body);
    const tenantId = tenantOf(c);
    const { object, replayed } = await keys.create(tenantId, idempotencyKeyOf(c), {
      body,
      // a deployment being deleted frees its name: the key no longer stands for it
      live: (id) => {
        const record = store.find(tenantId, id);
        return record && record.status !== 'AWAITING_DELETE' ? record : undefined;
      },
      create: () => store.create(tenantId, input),
      idOf: (record) => record.id,
    });
    if (replayed) c.header(REPLAYED_HEADER, 'true');
    return c.json(store.toDeployment(object, ctx.baseUrl()), 201);
  });

  app.get('/v2/deployments', auth, (c) => {
    const v = new RequestValidator();
    const { limit, offset } = paging(v, c);
    v.throwIfFailed();
    const records = store.list(tenantOf(c), queryParam(c, 'name_contains'), limit, offset);
    return c.json({
      resources: records.map((r) => store.toDeployment(r, ctx.baseUrl())),
      offset: offset + records.length,
    });
  });

  app.get('/v2/deployments/:deployment_id', auth, (c) => {
    return c.json(store.toDeployment(deploymentOf(c, new RequestValidator()), ctx.baseUrl()));
  });

  app.patch('/v2/deployments/:deployment_id', auth, async (c) => {
    const v = new RequestValidator();
    const id = v.uuidPath('deployment_id', c.req.param('deployment_id'));
    const patch = v.valid(parsePatchBody(v, await readJsonBody(c)));
    const record = store.require(tenantOf(c), id);
    // a deployment being deleted takes no PATCH at all: 409 before any rule of the body
    store.refuseWhileDeleting(record);
    checkPatchRules(patch, {
      source: record.source,
      sourceConfig: record.sourceConfig,
      latestRevision: store.latestRevisionConfig(record),
    });
    return c.json(store.toDeployment(store.update(record, patch), ctx.baseUrl()));
  });

  app.delete('/v2/deployments/:deployment_id', auth, (c) => {
    const record = deploymentOf(c, new RequestValidator());
    return c.json(store.toDeployment(store.requestDelete(record, ctx.timings.deleteDelayMs), ctx.baseUrl()), 202);
  });

  app.get('/v2/deployments/:deployment_id/revisions', auth, (c) => {
    const v = new RequestValidator();
    // FastAPI's order: the path parameters, then the query's
    const id = v.uuidPath('deployment_id', c.req.param('deployment_id') ?? '');
    const { limit, offset } = paging(v, c);
    const statuses = v.enumListQuery('status', queryParam(c, 'status', 'all'), REVISION_STATUSES);
    const remoteReconciled = v.boolQuery('remote_reconciled', queryParam(c, 'remote_reconciled'));
    v.throwIfFailed();
    const record = store.require(tenantOf(c), id);
    const resources = store.listRevisions(record.id, { statuses, remoteReconciled, limit, offset });
    return c.json({ resources, offset: offset + resources.length });
  });

  app.get('/v2/deployments/:deployment_id/revisions/:revision_id', auth, (c) => {
    const v = new RequestValidator();
    // in the order of the path, as FastAPI lists them
    const deploymentId = v.uuidPath('deployment_id', c.req.param('deployment_id'));
    const revisionId = v.uuidPath('revision_id', c.req.param('revision_id'));
    v.throwIfFailed();
    return c.json(store.getRevisionInWorkspace(tenantOf(c), deploymentId, revisionId));
  });

  // The revision every waiting `terraform apply` polls: the plain case skips the framework (see fast-routes.ts).
  // Its JSON is kept while the database is unchanged: between two pipeline steps every poll gets the same bytes.
  const revisionBodies = new UnchangedCache<string>(ctx.db);
  ctx.fastRoutes.get(REVISION_PATH, (match, header) => {
    const { tenantId } = ctx.auth.authenticate(apiKeyOf(header), header('x-tenant-id'));
    const [, deploymentId, revisionId] = match as unknown as [string, string, string];
    const body = revisionBodies.get(`${tenantId}/${deploymentId}/${revisionId}`, () => {
      const revision = store.findRevisionInWorkspace(tenantId, deploymentId, revisionId);
      return revision && JSON.stringify(revision);
    });
    return body === undefined ? undefined : { status: 200, body };
  });

  app.get('/v2/sandboxes/templates', auth, (c) => c.json({ templates: templates.list(tenantOf(c)) }));

  app.post('/v2/sandboxes/templates', auth, async (c) => {
    const v = new RequestValidator();
    const input = v.valid(v.parse(SandboxTemplateInput, await readJsonBody(c), ['body']));
    return c.json(templates.add(tenantOf(c), input), 201);
  });

  return { start: () => pipeline.start(), stop: () => pipeline.stop() };
}

/** The control plane: deployments, revisions and their pipeline, sandbox templates. */
export const controlPlaneModule: PlatformModule = {
  migrations: {
    module: 'control-plane',
    migrations: [
      ...DEPLOYMENT_MIGRATIONS,
      ...SANDBOX_TEMPLATE_MIGRATIONS,
      idempotencyKeysMigration('004-idempotency-keys', IDEMPOTENCY_TABLE),
      idempotencyBodyDigestMigration('005-idempotency-key-body-digest', IDEMPOTENCY_TABLE),
    ],
    sealedColumns: [{ table: 'cp_secrets', column: 'sealed_value' }, ...SANDBOX_TEMPLATE_SEALED_COLUMNS],
  },
  mount: mountControlPlane,
};
