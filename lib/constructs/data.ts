/** Read-only views of the control plane: a deployment's revisions, and the workspace's sandbox templates. */
import type { TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { LIST_LIMIT, REVISION_STATUSES } from '../api/schemas/control-plane-constants';
import { wholeNumberProblem } from './checks';
import type { IDeployment } from './deployment-ref';
import { Violations, isToken, messages } from './errors';
import { DataAgentplatformRevisions, type DataAgentplatformRevisionsRevisionsList } from './generated/data-agentplatform-revisions';
import { DataAgentplatformSandboxTemplates, type DataAgentplatformSandboxTemplatesTemplatesList } from './generated/data-agentplatform-sandbox-templates';

/** Props of {@link DeploymentRevisions}. */
export interface DeploymentRevisionsProps {
  /** The deployment. */
  readonly deployment: IDeployment;
  /**
   * Only revisions in one of these statuses, e.g. `['DEPLOYED']`; a name that is no revision status (`DEPLOYED`,
   * `BUILDING`, `DEPLOY_FAILED`, ...) fails at synth.
   * @default every status
   */
  readonly statuses?: string[];
  /**
   * Only revisions whose state has (`true`) or has not (`false`) been applied to the serving side.
   * @default both
   */
  readonly remoteReconciled?: boolean;
  /**
   * Revisions per page, 1 to 100.
   * @default 20, or 100 with `all`
   */
  readonly limit?: number;
  /**
   * Revisions to skip first.
   * @default 0
   */
  readonly offset?: number;
  /**
   * Read every page from `offset` on.
   * @default false (one page)
   */
  readonly all?: boolean;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** The revisions of a deployment, newest first. */
export class DeploymentRevisions extends Construct {
  /** The revisions: `revisions.get(0).status` is the newest one's status. */
  readonly revisions: DataAgentplatformRevisionsRevisionsList;
  /** The newest listed revision's id. */
  readonly newestRevisionId: string;
  /** The newest listed revision's status. */
  readonly newestStatus: string;
  /** The `agentplatform_revisions` data source, for escape hatches. */
  readonly dataSource: DataAgentplatformRevisions;

  constructor(scope: Construct, id: string, props: DeploymentRevisionsProps) {
    super(scope, id);
    const violations = new Violations();
    // spec: Limits, revision list `limit` is 1 to 100 and `offset` at least 0; `status` lists revision statuses
    violations.check('limit', props.limit, wholeNumberProblem(LIST_LIMIT.min, LIST_LIMIT.max));
    violations.check('offset', props.offset, wholeNumberProblem(0));
    // a list given as a token (a variable of list type) is checked by the provider at plan
    (isToken(props.statuses) ? [] : (props.statuses ?? [])).forEach((status, index) =>
      violations.check(`statuses[${index}]`, status, (s) => ((REVISION_STATUSES as readonly string[]).includes(s) ? undefined : messages.oneOf(s, REVISION_STATUSES))),
    );
    violations.throwIfAny('DeploymentRevisions', this);
    this.dataSource = new DataAgentplatformRevisions(this, 'Resource', {
      deploymentId: props.deployment.deploymentId,
      status: props.statuses && [...props.statuses],
      remoteReconciled: props.remoteReconciled,
      limit: props.limit,
      offset: props.offset,
      all: props.all,
      provider: props.provider,
    });
    this.revisions = this.dataSource.revisions;
    this.newestRevisionId = this.revisions.get(0).id;
    this.newestStatus = this.revisions.get(0).status;
  }
}

/** Props of {@link SandboxTemplates}. */
export interface SandboxTemplatesProps {
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** The sandbox templates of the workspace: the platform's built-in ones first, then the workspace's own. */
export class SandboxTemplates extends Construct {
  /** The templates: `templates.get(0).name`, `templates.get(0).resources.memory`, ... */
  readonly templates: DataAgentplatformSandboxTemplatesTemplatesList;
  /** The `agentplatform_sandbox_templates` data source, for escape hatches. */
  readonly dataSource: DataAgentplatformSandboxTemplates;

  constructor(scope: Construct, id: string, props: SandboxTemplatesProps = {}) {
    super(scope, id);
    this.dataSource = new DataAgentplatformSandboxTemplates(this, 'Resource', { provider: props.provider });
    this.templates = this.dataSource.templates;
  }
}
