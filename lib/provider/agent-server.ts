/**
 * How the provider reaches a deployment's agent server: the resources that live on it (assistants, crons) and the
 * post-deploy check. A deployment is named by its id; its agent server is at the `url` the control plane answers
 * for it, and takes the provider's API key in `X-Api-Key` (platform-api.md, Authentication: "every request requires
 * header `X-Api-Key`"). No workspace header is sent: the agent server is addressed by its URL alone.
 */
import type { AgentServerClient } from '../api/agent-server';
import type { ProviderContext } from './context';
import { DiagnosticError } from './framework/diagnostics';

/** The client of the agent server at `url`, one per configured provider and URL. */
export function agentServerAt(ctx: ProviderContext, url: string): AgentServerClient {
  return ctx.client(`agent-server/${url}`, (context) => {
    // Loaded on first use, as the other clients: plans that never reach an agent server never load it.
    const { AgentServerClient: Client } = require('../api/agent-server') as typeof import('../api/agent-server');
    const options = context.transportOptions('control-plane');
    return new Client({ ...options, baseUrl: url, auth: { kind: 'api-key', apiKey: context.config.apiKey! } });
  });
}

/**
 * The URL a deployment serves its agent server at, read from the control plane (of `tenantId`, the workspace the
 * deployment is in, or the provider's). A deployment that has no URL yet (none of its revisions has been DEPLOYED)
 * is an error that says so.
 */
export async function deploymentUrl(ctx: ProviderContext, deploymentId: string, tenantId?: string | null): Promise<string> {
  const deployment = await ctx.controlPlane(tenantId).getDeployment(deploymentId, { signal: ctx.signal });
  if (!deployment.url) {
    throw new DiagnosticError(
      'Deployment not served yet',
      `Deployment ${deploymentId} has no URL yet: its agent server answers once a revision is DEPLOYED. ` +
        'Declare the deployment with wait_for_deployed (the default) and refer to its id, so that this waits for it.',
    );
  }
  return deployment.url;
}

/** The agent server of a deployment, by the deployment's id. */
export async function deploymentAgentServer(ctx: ProviderContext, deploymentId: string, tenantId?: string | null): Promise<AgentServerClient> {
  return agentServerAt(ctx, await deploymentUrl(ctx, deploymentId, tenantId));
}
