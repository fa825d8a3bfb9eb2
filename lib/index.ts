/**
 * The package's entry point: the cdktf constructs, and the typed clients of the three platform APIs.
 * The provider and the local platform run as their own processes (`agentplatform-provider`, `agentplatform-local`).
 */
export * from './constructs';
export { ControlPlaneClient } from './api/control-plane';
export { BulkExportClient } from './api/bulk-export';
export { AgentServerClient } from './api/agent-server';
export * from './api/errors';
export type { ApiAuth, TransportOptions } from './api/http';
