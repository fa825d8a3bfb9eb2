/**
 * The post-deploy check of `agentplatform_deployment` (`smoke_test`): after an apply that leaves a new revision
 * DEPLOYED, one run streamed from the deployment's agent server must finish, without error, with an answer that
 * contains `expect_contains`. `smoke_test_revision_id` keeps the revision it last passed on, so that a plan shows
 * when it runs again: on a new revision, after a check that did not pass, and when `smoke_test` changes.
 */
import { UNKNOWN, isKnown, type ConfigModel, type CreateRequest, type PlanRequest, type ResourceDefinition, type UpdateRequest } from '../../framework';
import type { DeploymentModel, DeploymentSchema as Schema } from './schema';
import { sameJson } from '../shared/json-object';
import { runSmokeTest, type SmokeTestFailure, type SmokeTestSettings } from './smoke-test-run';


type Check = NonNullable<DeploymentModel['smoke_test']>;
type PlannedCheck = ConfigModel<Schema>['smoke_test'];

/** The settings of two checks run the same way (the input compared as JSON, not as text). */
function sameCheck(a: Check | null, b: PlannedCheck): boolean {
  if (a === null || b === null || !isKnown(b)) return false;
  const fields = ['assistant_id', 'expect_contains', 'timeout'] as const;
  if (!fields.every((key) => isKnown(b[key]) && a[key] === b[key])) return false;
  if (!isKnown(b.input) || a.input === null || b.input === null) return false;
  return sameJson(a.input, b.input);
}


/** Whether a check that passed on `prior`'s revision holds for `revisionId` with the settings `check`. */
const passedAlready = (prior: DeploymentModel | null, revisionId: unknown, check: PlannedCheck): boolean =>
  prior !== null && typeof revisionId === 'string' && prior.smoke_test_revision_id === revisionId && sameCheck(prior.smoke_test, check);

/** Plans `smoke_test_revision_id`: unknown when the apply runs the check, null without a check. */
function planSmokeTest({ prior, planned }: PlanRequest<Schema>): void {
  if (planned.smoke_test === null) planned.smoke_test_revision_id = null;
  else if (!passedAlready(prior, planned.latest_revision_id, planned.smoke_test)) planned.smoke_test_revision_id = UNKNOWN;
  else planned.smoke_test_revision_id = prior!.smoke_test_revision_id;
}

/**
 * Runs the check after a create or an update, when it has not passed on the deployment's latest revision with these
 * settings. Never throws: the deployment is in the returned state whatever the check does. A failure is an error;
 * on create terraform then taints the deployment, as it does after a create whose wait fails.
 */
async function checkAfterApply(
  req: Pick<CreateRequest<Schema>, 'planned' | 'ctx' | 'signal' | 'diagnostics'>,
  prior: DeploymentModel | null,
  model: DeploymentModel,
): Promise<DeploymentModel> {
  const check = req.planned.smoke_test;
  const revisionId = model.latest_revision_id;
  if (check === null) return { ...model, smoke_test_revision_id: null };
  if (passedAlready(prior, revisionId, check)) return { ...model, smoke_test_revision_id: revisionId };
  const notPassed = { ...model, smoke_test_revision_id: null };
  // the apply failed already (its revision failed, its wait ran out): the check runs on the next apply
  if (req.diagnostics.hasErrors()) return notPassed;
  const name = model.name;
  if (!revisionId || model.revision_status !== 'DEPLOYED' || !model.url) {
    req.diagnostics.warning(
      `Deployment "${name}": smoke_test did not run`,
      `Revision ${revisionId ?? '(none)'} is ${model.revision_status ?? 'not deployed'}, not DEPLOYED (\`wait_for_deployed = false\`?): ` +
        'the check runs on the next apply once it is.',
    );
    return notPassed;
  }
  req.ctx.log.info(`deployment ${model.id}: running smoke_test on revision ${revisionId}`);
  const failure = await runSmokeTest(req.ctx, model.url, check as SmokeTestSettings, req.signal);
  if (!failure) {
    req.ctx.log.info(`deployment ${model.id}: smoke_test passed on revision ${revisionId}`);
    return { ...model, smoke_test_revision_id: revisionId };
  }
  reportFailure(req.diagnostics, { name, id: model.id!, revisionId }, failure, prior === null);
  return notPassed;
}

function reportFailure(
  diagnostics: CreateRequest<Schema>['diagnostics'],
  deployment: { readonly name: string; readonly id: string; readonly revisionId: string },
  failure: SmokeTestFailure,
  onCreate: boolean,
): void {
  const summary = `Deployment "${deployment.name}": smoke_test failed on revision ${deployment.revisionId}`;
  const kept =
    `Revision ${deployment.revisionId} is DEPLOYED and serves; smoke_test_revision_id stays null, so the next plan shows the check running ` +
    'again, as an in-place update of the deployment.';
  // as a failed wait on create (and a failed creation-time provisioner): the apply fails and terraform taints the object
  const next = onCreate
    ? `Deployment ${deployment.id} is kept in state; terraform marks it tainted, so the next apply replaces it. ` +
      'To keep it and run the check again on it instead, run `terraform untaint` on it.'
    : kept;
  diagnostics.error(summary, `${failure.detail} ${next}`);
}

/** The deployment resource with its post-deploy check: `smoke_test_revision_id` planned, the check run after apply. */
export function withSmokeTest(definition: ResourceDefinition<Schema>): ResourceDefinition<Schema> {
  const { plan, create, update } = definition;
  return {
    ...definition,
    plan: async (req: PlanRequest<Schema>) => {
      await plan?.(req);
      planSmokeTest(req);
    },
    create: async (req: CreateRequest<Schema>) => checkAfterApply(req, null, await create(req)),
    update: async (req: UpdateRequest<Schema>) => checkAfterApply(req, req.prior, await update(req)),
  };
}
