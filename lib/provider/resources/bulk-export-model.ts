/**
 * How `agentplatform_bulk_export` maps to the bulk export API: the creation body of a plan, and the state of an
 * export as the API returns it, with the settings only Terraform keeps.
 */
import type { BulkExport, BulkExportCreate } from '../../api/schemas/bulk-export';
import type { BulkExportModel } from './bulk-export';
import { sameFilter, sameInstant, sameUuid } from './bulk-export-checks';
import { workspaceId } from './workspace';

/** Attributes that only Terraform keeps (the API has no such field). */
export type LocalSettings = Pick<BulkExportModel, 'wait_for_completion' | 'cancel_spawned_on_destroy' | 'timeouts'>;

/** The settings only Terraform keeps, with their defaults. */
export function localSettings(from: LocalSettings): LocalSettings {
  return {
    wait_for_completion: from.wait_for_completion ?? false,
    cancel_spawned_on_destroy: from.cancel_spawned_on_destroy ?? false,
    timeouts: from.timeouts,
  };
}

/** The API's creation body of the planned export: what the configuration sets, nothing more. */
export function createBody(planned: BulkExportModel): BulkExportCreate {
  return {
    bulk_export_destination_id: planned.destination_id,
    session_id: planned.session_id,
    start_time: planned.start_time,
    ...(planned.end_time !== null ? { end_time: planned.end_time } : {}),
    ...(planned.interval_hours !== null ? { interval_hours: planned.interval_hours } : {}),
    ...(planned.filter !== null ? { filter: planned.filter } : {}),
    ...(planned.export_fields !== null ? { export_fields: planned.export_fields } : {}),
    ...(planned.format_version !== null ? { format_version: planned.format_version as BulkExportCreate['format_version'] } : {}),
  };
}

/**
 * A value as the configuration wrote it, when the platform returned the same value in another form (an instant
 * normalized, an id in lower case, a filter as the platform keeps it).
 */
function keepWritten(returned: string, written: string | null, same: (a: string, b: string) => boolean): string {
  return written !== null && same(written, returned) ? written : returned;
}

/** The state of an export as the API returns it, with the settings only Terraform keeps. */
export function toModel(e: BulkExport, local: BulkExportModel): BulkExportModel {
  return {
    id: e.id,
    destination_id: keepWritten(e.bulk_export_destination_id, local.destination_id, sameUuid),
    session_id: keepWritten(e.session_id, local.session_id, sameUuid),
    start_time: keepWritten(e.start_time, local.start_time, sameInstant),
    end_time: e.end_time === null ? null : keepWritten(e.end_time, local.end_time, sameInstant),
    interval_hours: e.interval_hours,
    filter: e.filter === null ? null : keepWritten(e.filter, local.filter, sameFilter),
    export_fields: e.export_fields === null ? null : [...e.export_fields],
    format_version: e.format_version,
    ...localSettings(local),
    status: e.status,
    created_at: e.created_at,
    finished_at: e.finished_at,
    tenant_id: workspaceId(e.tenant_id),
  };
}
