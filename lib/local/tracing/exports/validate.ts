/**
 * Validation of `POST /api/v1/bulk-exports`: every problem becomes one item of a 422 HTTPValidationError, all of
 * them at once. The filter is checked with the same parser the clients and the provider use.
 */
import {
  DEFAULT_FORMAT_VERSION,
  INTERVAL_HOURS_MAX,
  INTERVAL_HOURS_MIN,
  type FormatVersion,
} from '../../../api/schemas/bulk-export';
import { validateFilter } from '../../../api/filter';
import { filterLimitProblem } from '../filter-limits';
import { MAX_EXPORT_DAYS, SCHEDULE_DELAY_MS, exportDays } from '../../../api/schemas/bulk-export-constants';
import { EXPORTABLE_FIELD_NAMES, isExportableField, parseIsoInstant } from '../../../api/schemas/trace';
import type { z } from 'zod';
import { RequestValidator, enumMessage } from '../../validation';
import { BulkExportCreateBody } from '../request-bodies';

/**
 * How far in the future a one-off export may end: a client's clock a little ahead of the platform's, or an end of
 * "now" rounded up, is no mistake. The same allowance a schedule gives late runs.
 */
const FUTURE_END_TOLERANCE_MS = SCHEDULE_DELAY_MS;

/** A valid export request, with its times parsed. */
export interface ValidExportRequest {
  readonly destinationId: string;
  readonly sessionId: string;
  readonly startTime: string;
  readonly startMicros: number;
  readonly endTime: string | null;
  readonly endMicros: number | null;
  readonly filter: string | null;
  readonly exportFields: string[] | null;
  readonly intervalHours: number | null;
  readonly formatVersion: FormatVersion;
}

/** Lookups the validation needs: whether a referenced project and destination exist in the caller's workspace. */
export interface ExportReferences {
  readonly sessionExists: (id: string) => boolean;
  readonly destinationExists: (id: string) => boolean;
  /** The platform's clock, epoch milliseconds: whether a one-off export ends in the future. */
  readonly nowMs: number;
}


function instant(validator: RequestValidator, field: string, text: string): number {
  const micros = parseIsoInstant(text);
  if (Number.isNaN(micros)) {
    validator.add(['body', field], 'datetime_from_date_parsing', 'Input should be a valid datetime or date, expected an ISO 8601 timestamp');
  }
  return micros;
}

/** The checks of `export_fields` of their own (their items' names, each once). */
function checkExportFields(validator: RequestValidator, exportFields: readonly string[]): void {
  if (exportFields.length === 0) validator.add(['body', 'export_fields'], 'too_short', 'List should have at least 1 item after validation, not 0');
  exportFields.forEach((field, index) => {
    if (!isExportableField(field)) {
      validator.add(['body', 'export_fields', index], 'enum', `${enumMessage(EXPORTABLE_FIELD_NAMES)}; got '${field}'`);
    } else if (exportFields.indexOf(field) !== index) {
      validator.add(['body', 'export_fields', index], 'value_error', `Value error, field '${field}' is listed twice`);
    }
  });
}

/** The range check of `interval_hours` of its own; true when it is within the range. */
function checkIntervalRange(validator: RequestValidator, intervalHours: number): boolean {
  if (intervalHours < INTERVAL_HOURS_MIN) {
    validator.add(['body', 'interval_hours'], 'greater_than_equal', `Input should be greater than or equal to ${INTERVAL_HOURS_MIN}`);
    return false;
  }
  if (intervalHours > INTERVAL_HOURS_MAX) {
    validator.add(['body', 'interval_hours'], 'less_than_equal', `Input should be less than or equal to ${INTERVAL_HOURS_MAX}`);
    return false;
  }
  return true;
}

/** The check of `filter` of its own: it parses (an empty filter does not: leave `filter` out to export every run). */
function checkFilter(validator: RequestValidator, filter: string): void {
  const parsed = validateFilter(filter);
  const problem = parsed.ok ? filterLimitProblem(parsed.expr) : parsed.error.message;
  if (problem !== undefined) validator.add(['body', 'filter'], 'value_error', `Value error, ${problem}`);
}

/** The fields of an export body, each one when its value is valid on its own. */
type ExportRequestFields = Partial<z.output<typeof BulkExportCreateBody>>;

/**
 * The fields of a body that did not parse whose values are valid on their own (each read by its own schema), so that
 * their checks run all the same; undefined when the body is no object (that is its only problem).
 */
function validFieldsOf(body: unknown): ExportRequestFields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(BulkExportCreateBody.shape)) {
    const parsed = (schema as z.ZodType).safeParse((body as Record<string, unknown>)[name]);
    if (parsed.success) fields[name] = parsed.data;
  }
  return fields as ExportRequestFields;
}

/**
 * Validates a creation body; throws the 422 when anything is wrong. As pydantic's field validators do, the checks of
 * one field run even when another field has the wrong type or is missing, so that every problem is reported at once:
 * every check below runs on the fields that are valid on their own, whether or not the body as a whole parsed.
 */
export function validateExportRequest(body: unknown, refs: ExportReferences): ValidExportRequest {
  const validator = new RequestValidator();
  const parsed = validator.parse(BulkExportCreateBody, body, ['body']);
  const fields: ExportRequestFields | undefined = parsed ?? validFieldsOf(body);
  if (fields === undefined) validator.throwIfFailed();
  const request = fields!;
  // a field sent with a value of the wrong type has that problem, not a missing value
  const sent = (name: keyof ExportRequestFields): boolean => {
    const value = (body as Record<string, unknown>)[name];
    return value !== undefined && value !== null;
  };
  // ids are kept in lower case, and read in any (as in paths)
  const destinationId = request.bulk_export_destination_id?.toLowerCase();
  const sessionId = request.session_id?.toLowerCase();

  if (destinationId !== undefined && !refs.destinationExists(destinationId)) {
    validator.add(['body', 'bulk_export_destination_id'], 'value_error', `Value error, bulk export destination ${request.bulk_export_destination_id} not found`);
  }
  if (sessionId !== undefined && !refs.sessionExists(sessionId)) {
    validator.add(['body', 'session_id'], 'value_error', `Value error, tracing project ${request.session_id} not found`);
  }

  const startMicros = request.start_time === undefined ? NaN : instant(validator, 'start_time', request.start_time);
  const endTime = request.end_time ?? null;
  const intervalHours = request.interval_hours ?? null;
  let endMicros: number | null = null;
  if (!sent('end_time') && !sent('interval_hours')) {
    validator.add(['body', 'end_time'], 'missing', 'Field required (end_time is required unless interval_hours makes the export scheduled)');
  } else if (endTime !== null && intervalHours !== null) {
    validator.add(['body', 'end_time'], 'value_error', 'Value error, end_time must be omitted for a scheduled export (interval_hours is set)');
  } else if (endTime !== null) {
    endMicros = instant(validator, 'end_time', endTime);
    if (!Number.isNaN(startMicros) && !Number.isNaN(endMicros) && endMicros <= startMicros) {
      validator.add(['body', 'end_time'], 'value_error', 'Value error, end_time must be after start_time');
    } else if (exportDays(startMicros, endMicros) > MAX_EXPORT_DAYS) {
      validator.add(['body', 'end_time'], 'value_error', `Value error, an export covers at most ${MAX_EXPORT_DAYS} UTC days: split the range into several exports`);
    } else if (endMicros / 1000 > refs.nowMs + FUTURE_END_TOLERANCE_MS) {
      validator.add(
        ['body', 'end_time'],
        'value_error',
        `Value error, end_time is in the future (the platform's time is ${new Date(refs.nowMs).toISOString()}): an export writes the runs ` +
          'stored when it runs, and later ones would be missed; end it at the latest now, or make it scheduled with interval_hours ' +
          '(each interval is exported once it has ended)',
      );
    }
  }
  // a schedule may start any time in the past: every interval due is spawned, and the queue runs them (see engine.ts)
  if (intervalHours !== null) checkIntervalRange(validator, intervalHours);

  const exportFields = request.export_fields ?? null;
  if (exportFields !== null) checkExportFields(validator, exportFields);
  const filter = request.filter ?? null;
  if (filter !== null) checkFilter(validator, filter);

  validator.throwIfFailed();
  return {
    destinationId: destinationId!,
    sessionId: sessionId!,
    startTime: request.start_time!,
    startMicros,
    endTime,
    endMicros,
    filter,
    exportFields,
    intervalHours,
    formatVersion: request.format_version ?? DEFAULT_FORMAT_VERSION,
  };
}
