/**
 * The clients read the platform tolerantly: every field the spec does not require is optional in their answers. The
 * local platform answers every field, so tests that talk to it read its answers through {@link localBulkExport} and
 * {@link localControlPlane}: each answer is parsed again with the complete record schema (a field it left out fails
 * the test) and typed as such.
 */
import { z } from 'zod';
import type { BulkExportClient } from '../../lib/api/bulk-export';
import type { ControlPlaneClient } from '../../lib/api/control-plane';
import { BulkExportRecord, BulkExportRunRecord, DestinationRecord } from '../../lib/api/schemas/bulk-export';
import { DeploymentRecord, Revision, RevisionsList, SandboxTemplateRecord } from '../../lib/api/schemas/control-plane';
import { SessionRecord } from '../../lib/api/schemas/tracing';

type Answers = Readonly<Record<string, z.ZodType>>;

/** `C` with the methods named in `M` answering `M`'s types (first, so that calls resolve to them); still a `C`. */
export type Completed<C, M extends Answers> = {
  [K in keyof M & keyof C]: C[K] extends (...args: infer A) => Promise<unknown> ? (...args: A) => Promise<z.output<M[K]>> : never;
} & C;

function completed<C extends object, M extends Answers>(client: C, answers: M): Completed<C, M> {
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      const schema = typeof key === 'string' ? answers[key] : undefined;
      if (!schema) return value.bind(target);
      return async (...args: unknown[]) => schema.parse(await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  }) as unknown as Completed<C, M>;
}

const BULK_EXPORT_ANSWERS = {
  createDestination: DestinationRecord,
  getDestination: DestinationRecord,
  listDestinations: z.array(DestinationRecord),
  rotateDestinationCredentials: DestinationRecord,
  createExport: BulkExportRecord,
  getExport: BulkExportRecord,
  listExports: z.array(BulkExportRecord),
  cancelExport: BulkExportRecord,
  listExportRuns: z.array(BulkExportRunRecord),
  createSession: SessionRecord,
  getSession: SessionRecord,
  findSessionByName: SessionRecord.optional(),
  listSessions: z.array(SessionRecord),
  updateSession: SessionRecord,
} as const;

const CONTROL_PLANE_ANSWERS = {
  createDeployment: DeploymentRecord,
  getDeployment: DeploymentRecord,
  updateDeployment: DeploymentRecord,
  listDeployments: z.object({ resources: z.array(DeploymentRecord), offset: z.number().int() }),
  getRevision: Revision,
  listRevisions: RevisionsList,
  listSandboxTemplates: z.array(SandboxTemplateRecord),
} as const;

/** A bulk export client of the local platform, as the tests read it. */
export type LocalBulkExportClient = Completed<BulkExportClient, typeof BULK_EXPORT_ANSWERS>;

/** A control plane client of the local platform, as the tests read it. */
export type LocalControlPlaneClient = Completed<ControlPlaneClient, typeof CONTROL_PLANE_ANSWERS>;

/** `client`, its answers parsed with the complete record schemas the local platform answers. */
export const localBulkExport = (client: BulkExportClient): LocalBulkExportClient => completed(client, BULK_EXPORT_ANSWERS);

/** `client`, its answers parsed with the complete record schemas the local platform answers. */
export const localControlPlane = (client: ControlPlaneClient): LocalControlPlaneClient => completed(client, CONTROL_PLANE_ANSWERS);
