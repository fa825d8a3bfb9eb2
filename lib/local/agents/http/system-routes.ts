/** The system routes of an agent server: `/ok`, `/docs` and `/info`. */
import type { Hono } from 'hono';
import type { ServerInfo } from '../../../api/schemas/agent-server-store';
import { LOCAL_AGENT_SERVER_VERSION, type AgentServerEnv } from './env';
import { agentServerOpenApi } from './openapi';

/** Registers `/ok`, `/docs` and `/info`. */
export function registerSystemRoutes(app: Hono<AgentServerEnv>): void {
  app.get('/ok', (c) => c.json({ ok: true }));
  app.get('/docs', (c) => c.json(agentServerOpenApi(c.get('deployment').id)));
  // as the LangGraph server answers it: its version, the optional features it has (assistants, crons, runs traced to
  // the tracing API) and where it is hosted (the deployment as the project, its workspace as the tenant)
  app.get('/info', (c) => {
    const deployment = c.get('deployment');
    const info: ServerInfo = {
      version: LOCAL_AGENT_SERVER_VERSION,
      flags: { assistants: true, crons: true, langsmith: true, langsmith_tracing_replicas: false },
      host: { kind: 'self-hosted', project_id: deployment.id, tenant_id: deployment.tenantId, revision_id: null, host_revision_id: null },
    };
    return c.json(info);
  });
}
