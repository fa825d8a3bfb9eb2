/**
 * The request bodies of the bulk export API as the local platform reads them: the shared schemas (lib/api), with
 * every object closed. A misspelt or misplaced field is a 422 `extra_forbidden` at its place, as on the control plane,
 * rather than ignored: an export whose `filters` (for `filter`) were dropped would export every run, and credentials
 * put inside `config` would reach the bucket as no credentials at all ("Access denied").
 */
import { z } from 'zod';
import {
  BulkExportCreate,
  BulkExportUpdate,
  DestinationConfig,
  DestinationCreate,
  DestinationCredentials,
} from '../../api/schemas/bulk-export';

const Credentials = z.strictObject(DestinationCredentials.shape);

/** Body of `POST /api/v1/bulk-exports/destinations`. */
export const DestinationCreateBody = z.strictObject({
  ...DestinationCreate.shape,
  config: z.strictObject(DestinationConfig.shape),
  credentials: Credentials.nullish(),
});

/** Body of `PATCH /api/v1/bulk-exports/destinations/{id}`: new credentials, nothing else (settings cannot change). */
export const DestinationCredentialsBody = z.strictObject({ credentials: Credentials });

/**
 * Body of `POST /api/v1/bulk-exports`. The spec types a destination id as a plain string; the local platform's are
 * uuids, and it reads one as it reads a path id.
 */
export const BulkExportCreateBody = z.strictObject({ ...BulkExportCreate.shape, bulk_export_destination_id: z.guid() });

/** Body of `PATCH /api/v1/bulk-exports/{id}`: the cancel request, nothing else. */
export const BulkExportUpdateBody = z.strictObject(BulkExportUpdate.shape);
