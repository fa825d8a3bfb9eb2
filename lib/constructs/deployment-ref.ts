/**
 * What the constructs that live on a deployment (assistants, crons, its revisions) need of it, apart from the
 * `Deployment` construct so that they depend on this and the deployment may make them (`addAssistant`).
 */
import type { IConstruct } from 'constructs';

/** A deployment, created here or elsewhere. */
export interface IDeployment extends IConstruct {
  /** The deployment id (a UUID). */
  readonly deploymentId: string;
}
