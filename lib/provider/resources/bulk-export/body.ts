/**
 * How `agentplatform_bulk_export` maps to the bulk export API: the creation body of a plan, and the state of an
 * export as the API returns it, with the settings only Terraform keeps.
 */
import type { BulkExport, BulkExportCreate } from '../../../api/schemas/bulk-export';
import type { BulkExportModel } from './schema';
import { given } from '../../framework';
import { workspaceId } from '../shared/workspace';

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
 * The state of an export as the API returns it, with the settings only Terraform keeps. What the answer leaves out
 * keeps its value in `base` (the plan on create, the prior state on read); a value written otherwise than `base` has
 * it (an instant, an id's case, a filter's spacing) is kept as `base` has it when the state is saved (each attribute's
 * `sameValue`).
 */
export function toModel(e: BulkExport, base: BulkExportModel): BulkExportModel {
  return {
    id: e.id,
    destination_id: given(e.bulk_export_destination_id, base.destination_id),
    session_id: given(e.session_id, base.session_id),
    start_time: given(e.start_time, base.start_time),
    end_time: given(e.end_time, base.end_time),
    interval_hours: given(e.interval_hours, base.interval_hours),
    filter: given(e.filter, base.filter),
    export_fields: e.export_fields ? [...e.export_fields] : given(e.export_fields, base.export_fields),
    format_version: given(e.format_version, base.format_version),
    ...localSettings(base),
    status: e.status,
    created_at: given(e.created_at, base.created_at),
    finished_at: given(e.finished_at, base.finished_at),
    tenant_id: e.tenant_id ? workspaceId(e.tenant_id) : base.tenant_id,
  };
}
