/**
 * What `agentplatform_deployment` tells users, in one place: each message says what went wrong, about which
 * attribute, and what to do. API errors become diagnostics here too, with the server's validation failures placed
 * on the attribute they concern. Messages never carry secret values (the client redacts what the server echoes).
 */
import type { ValidationError } from '../../../api/errors';
import { DiagnosticError, type Diagnostics, type PathLike } from '../../framework';
import type { WaitError } from '../shared/poll';
import { explainApiError } from '../../api-errors';

/** The `terraform import` command and `import {}` block that adopt an existing deployment. */
export function importHint(id: string): string {
  return (
    `To manage it with this configuration, import it (replace <name> with this resource's name in the configuration):\n\n` +
    `  terraform import agentplatform_deployment.<name> ${id}\n\n` +
    `or add an import block and apply:\n\n` +
    `  import {\n    to = agentplatform_deployment.<name>\n    id = "${id}"\n  }\n\n` +
    `Otherwise choose another name. If this create replaces a deployment of this very name (a change that forces ` +
    `replacement, under \`lifecycle { create_before_destroy = true }\`), the deployment it replaces holds the name until ` +
    `it is destroyed: give the replacement another name, or drop create_before_destroy.`
  );
}

/** A create refused because the workspace already has a deployment of that name. */
export function nameTaken(name: string, id: string | undefined): DiagnosticError {
  const what = id ? `A deployment named "${name}" already exists in this workspace (id ${id}).` : `A deployment named "${name}" already exists in this workspace.`;
  return new DiagnosticError('Deployment name already taken', id ? `${what}\n\n${importHint(id)}` : `${what} Choose another name.`, 'name');
}

/** The diagnostic of a wait that ended without the revision deployed (or the deployment deleted). */
export function waitEnded(
  diagnostics: Diagnostics,
  err: WaitError,
  operation: 'create' | 'update' | 'delete',
  deployment: { readonly id: string; readonly name: string },
): void {
  const kept =
    operation === 'create'
      ? `The deployment exists (id ${deployment.id}) and is kept in state. Terraform marks it tainted, so the next apply replaces it; run \`terraform untaint\` on it to keep it instead.`
      : operation === 'update'
        ? `The deployment (id ${deployment.id}) keeps its change; its state records the revision and its last status.`
        : `The deployment (id ${deployment.id}) stays in state until it is gone.`;
  if (err.reason === 'superseded') {
    diagnostics.error(
      `Deployment "${deployment.name}": revision ${err.revisionId}, made outside Terraform, took the place of this apply's`,
      `${capitalize(err.message)}. The deployment serves what revision ${err.revisionId} deploys, and its state records that` +
        (operation === 'create'
          ? `. ${kept}`
          : ', so the next plan shows the difference from the configuration: apply again to deploy the configured source, once ' +
            'whoever changed the deployment agrees.'),
    );
  } else if (err.reason === 'failed') {
    diagnostics.error(
      `Deployment "${deployment.name}": revision ${err.revisionId} ended in ${err.lastStatus}`,
      `${capitalize(err.message)}. ${kept} Look at revision ${err.revisionId} on the platform (its build or deploy logs), fix the source ` +
        '(`repo_ref`, `graph_config_path` or `image_uri`) and apply again' +
        (operation === 'update' ? ' (an apply without a change deploys the same source again, as a new revision).' : '.'),
    );
  } else if (err.reason === 'timed-out') {
    diagnostics.error(
      `Deployment "${deployment.name}": ${operation} timed out`,
      `${capitalize(err.message)}. ${kept} Allow more time with \`timeouts = { ${operation} = "..." }\`` +
        (operation === 'delete' ? '.' : ', or set `wait_for_deployed = false` to return without waiting.'),
      `timeouts.${operation}`,
    );
  } else {
    diagnostics.error(`Deployment "${deployment.name}": ${operation} interrupted`, `${capitalize(err.message)}. ${kept}`);
  }
}

/** Where a server validation location (`["body", "source_config", "repo_url"]`) is in the resource's attributes. */
const BODY_FIELDS: Readonly<Record<string, string>> = {
  name: 'name',
  source: 'source',
  secrets: 'secrets',
  'source_config.integration_id': 'integration_id',
  'source_config.repo_url': 'repo_url',
  'source_config.deployment_type': 'deployment_type',
  'source_config.build_on_push': 'build_on_push',
  'source_config.custom_url': 'custom_url',
  'source_config.resource_spec': 'resource_spec',
  'source_revision_config.repo_ref': 'repo_ref',
  'source_revision_config.graph_config_path': 'graph_config_path',
  'source_revision_config.image_uri': 'image_uri',
};

function attributeOf(loc: readonly (string | number)[]): PathLike | undefined {
  if (loc[0] !== 'body') return undefined;
  const fields = loc.slice(1).filter((step): step is string => typeof step === 'string');
  const nested = fields.slice(0, 2).join('.');
  const attribute = BODY_FIELDS[nested] ?? BODY_FIELDS[fields[0] ?? ''];
  if (attribute === 'resource_spec' && fields[2]) return `resource_spec.${fields[2]}`;
  return attribute;
}

/**
 * An API error as a diagnostic to throw: a refused key or workspace with what to check, anything else with the
 * client's message (method, URL, status, request id). A 422 becomes one diagnostic per problem, on its attribute:
 * all but the last are added to `diagnostics`, the last is returned.
 */
export function apiFailure(diagnostics: Diagnostics, err: unknown, doing: string): DiagnosticError {
  const { ApiError: ApiErrorClass, ValidationError: ValidationErrorClass } = require('../../../api/errors') as typeof import('../../../api/errors');
  if (err instanceof ValidationErrorClass && (err as ValidationError).items.length) {
    const problems = (err as ValidationError).items.map((item) => {
      const attribute = attributeOf(item.loc);
      // terraform points at the resource block only, for an attribute inside an object: the message names it
      const detail = typeof attribute === 'string' && attribute.includes('.') ? `\`${attribute}\`: ${item.msg}` : item.msg;
      return new DiagnosticError(`The platform refused to ${doing}`, detail, attribute);
    });
    for (const problem of problems.slice(0, -1)) diagnostics.error(problem.summary, problem.detail, problem.path);
    return problems[problems.length - 1]!;
  }
  // a refused key or workspace, or a platform out of reach: the setting to check
  const explained = err instanceof ApiErrorClass ? explainApiError(err, 'agentplatform_deployment') : err;
  if (explained instanceof DiagnosticError) return explained;
  return new DiagnosticError(`Failed to ${doing}`, err instanceof Error ? err.message : String(err));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The plan of an unchanged configuration whose latest revision failed: the apply deploys it again. */
export function failedRevisionDeployedAgain(diagnostics: Diagnostics, revisionId: string | null, status: string | null): void {
  diagnostics.warning(
    'Failed revision deployed again',
    `The latest revision${revisionId ? ` (${revisionId})` : ''} ended ${status ?? 'in failure'}: this apply deploys the same configuration ` +
      'again, which helps when the failure was passing. If it is not, change what failed (for example `repo_ref`) instead.',
  );
}

/** A github argument left out of the configuration whose value in the state is not the default: it goes back to it. */
export function revisionInputDefaulted(diagnostics: Diagnostics, attribute: string, was: string, to: string): void {
  diagnostics.warning(
    `${attribute} goes back to its default`,
    `\`${attribute}\` is not in the configuration, and the deployment has ${JSON.stringify(was)}: this apply deploys a new revision ` +
      `with the platform's default, ${JSON.stringify(to)}. To keep ${JSON.stringify(was)}, write it in the configuration.`,
    attribute,
  );
}
