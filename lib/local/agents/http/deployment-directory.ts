/**
 * How the agent servers find a deployment by the id in their URL: its owner, its name, and the graphs of its active
 * (DEPLOYED) revision. Read from the control plane's tables of the same database, so no request to the control
 * plane is needed per agent server request.
 */
import type { PlatformDatabase } from '../../db';
import { graphIdsForConfigPath } from '../graphs/registry';
import type { ServedDeployment } from '../runtime/run-executor';

/** A deployment as the agent server gate sees it. */
export type DeploymentView =
  /** A revision is DEPLOYED: the deployment serves its graphs. */
  | (ServedDeployment & { readonly state: 'serving'; readonly organizationId: string })
  /** No revision has reached DEPLOYED yet; `revisionStatus` is the latest revision's status. */
  | {
      readonly state: 'not_deployed';
      readonly id: string;
      readonly organizationId: string;
      readonly revisionStatus: string | null;
    };

interface DeploymentRow {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  organization_id: string;
  active_graph_config_path: string | null;
  active_revision_id: string | null;
  latest_status: string | null;
}

/** Finds deployments by id. */
export class DeploymentDirectory {
  private readonly lookupStatement;

  constructor(db: PlatformDatabase) {
    this.lookupStatement = db.prepare(
      `SELECT d.id, d.name, d.tenant_id, d.status, w.organization_id, d.active_revision_id,
              active.graph_config_path AS active_graph_config_path, latest.status AS latest_status
       FROM cp_deployments d
       JOIN workspaces w ON w.id = d.tenant_id
       LEFT JOIN cp_revisions active ON active.id = d.active_revision_id
       LEFT JOIN cp_revisions latest ON latest.id = d.latest_revision_id
       WHERE d.id = ?`,
    );
  }

  /** The deployment, or undefined when it does not exist or is being deleted. */
  lookup(deploymentId: string): DeploymentView | undefined {
    const row = this.lookupStatement.get(deploymentId.toLowerCase()) as DeploymentRow | undefined;
    if (!row || row.status === 'AWAITING_DELETE') return undefined;
    if (!row.active_revision_id) {
      return {
        state: 'not_deployed',
        id: row.id,
        organizationId: row.organization_id,
        revisionStatus: row.latest_status,
      };
    }
    return {
      state: 'serving',
      id: row.id,
      name: row.name,
      tenantId: row.tenant_id,
      organizationId: row.organization_id,
      graphIds: graphIdsForConfigPath(row.active_graph_config_path),
    };
  }

  /** The deployment when it serves, else undefined. */
  served(deploymentId: string): ServedDeployment | undefined {
    const view = this.lookup(deploymentId);
    return view?.state === 'serving' ? view : undefined;
  }
}
