/**
 * What `ScheduledExport` and `BulkExport` share: the destination, the tracing project, the exported fields, the
 * filter and the format, checked at synth with the platform's own rules (the filter parser and the exportable fields
 * table of `lib/api`).
 */
import type { TerraformProvider } from 'cdktf';
import { renderFilter, validateFilter, type FilterExpr } from '../api/filter';
import { FORMAT_VERSIONS, type FormatVersion } from '../api/schemas/bulk-export';
import { EXPORTABLE_FIELD_NAMES, isExportableField, parseIsoInstant, type ExportableFieldName } from '../api/schemas/trace';
import { Violations, isToken, messages } from './errors';
import type { IExportDestination } from './export-destination';
import type { TfBulkExportConfig } from './generated/bulk-export';

/** A filter: built with `Filter.*` (`Filter.and(Filter.eq('run_type', 'llm'), ...)`), or an expression string. */
export type ExportFilter = FilterExpr | string;

/** A point in time: a Date, or an ISO 8601 timestamp such as `2025-01-01T00:00:00Z`. */
export type ExportTime = Date | string;

/** Props shared by {@link ScheduledExport} and {@link BulkExport}. */
export interface ExportQueryProps {
  /** Where the Parquet files go. */
  readonly destination: IExportDestination;
  /** The tracing project (session) whose runs are exported: its id, a UUID. */
  readonly tracingProjectId: string;
  /**
   * Only these fields become columns; leaving out `inputs` and `outputs` makes exports much smaller.
   * @default every exportable field
   */
  readonly fields?: readonly ExportableFieldName[];
  /**
   * Only runs matching this filter.
   * @default every run of the range
   */
  readonly filter?: ExportFilter;
  /**
   * Parquet layout: `v1`, or `v2_beta` (typed columns for JSON and timestamps).
   * @default 'v1'
   */
  readonly formatVersion?: FormatVersion;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The resource attributes of the shared props, recording every violation. */
export function queryAttributes(
  props: ExportQueryProps,
  violations: Violations,
): Pick<TfBulkExportConfig, 'destinationId' | 'sessionId' | 'filter' | 'exportFields' | 'formatVersion' | 'provider'> {
  violations.check('tracingProjectId', props.tracingProjectId, (id) => (UUID.test(id) ? undefined : messages.notUuid('a tracing project id', id)));
  // a list given as a token (a variable of list type) is checked by the provider at plan
  if (props.fields !== undefined && !isToken(props.fields)) checkFields(props.fields, violations);
  violations.check('formatVersion', props.formatVersion, (v) => ((FORMAT_VERSIONS as readonly string[]).includes(v) ? undefined : messages.oneOf(v, FORMAT_VERSIONS)));
  return {
    destinationId: props.destination.destinationId,
    sessionId: props.tracingProjectId,
    filter: filterText(props.filter, violations),
    exportFields: props.fields && [...props.fields],
    formatVersion: props.formatVersion,
    provider: props.provider,
  };
}

function checkFields(fields: readonly string[], violations: Violations): void {
  if (fields.length === 0) violations.add('fields', messages.noFields());
  fields.forEach((field, index) => {
    violations.check(`fields[${index}]`, field, (f) => (isExportableField(f) ? undefined : messages.unknownField(f, EXPORTABLE_FIELD_NAMES)));
    if (fields.indexOf(field) !== index) violations.add(`fields[${index}]`, messages.duplicateField(field));
  });
}

function filterText(filter: ExportFilter | undefined, violations: Violations): string | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== 'string') return renderFilter(filter);
  violations.check('filter', filter, (text) => {
    if (text.trim() === '') return messages.emptyFilter();
    const result = validateFilter(text);
    return result.ok ? undefined : messages.badFilter(result.error.message);
  });
  return filter;
}

/** The timestamp the API takes for `time`; records a violation when a string is not an ISO 8601 instant. */
export function timeAttribute(prop: string, time: ExportTime, violations: Violations): string {
  if (time instanceof Date) {
    if (Number.isNaN(time.getTime())) violations.add(prop, messages.invalidDate());
    return Number.isNaN(time.getTime()) ? '' : time.toISOString();
  }
  violations.check(prop, time, (text) => (Number.isNaN(parseIsoInstant(text)) ? messages.notTimestamp(text) : undefined));
  return time;
}

/** Microseconds since the epoch of a known time, or undefined for tokens and bad values. */
export function instantOf(time: ExportTime): number | undefined {
  const micros = time instanceof Date ? time.getTime() * 1000 : parseIsoInstant(time);
  return Number.isNaN(micros) ? undefined : micros;
}
