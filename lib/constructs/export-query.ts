/**
 * What `ScheduledExport` and `BulkExport` share: the destination, the tracing project, the exported fields, the
 * filter and the format, checked at synth by the spec's rules (a tracing project id is a UUID, the exportable fields
 * table, a filter of function-style operators); what the spec does not state (operators and fields of a filter this
 * library does not know, a format version, a field listed twice) is a warning.
 */
import { Annotations, Tokenization, type TerraformProvider } from 'cdktf';
import type { IConstruct } from 'constructs';
import { renderFilter, reviewFilter, type FilterExpr } from '../api/filter';
import { FORMAT_VERSIONS } from '../api/schemas/bulk-export';
import { EXPORTABLE_FIELD_NAMES, isExportableField, parseIsoInstant } from '../api/schemas/trace';
import { Violations, isToken, messages, warnIfProblem } from './errors';
import type { IExportDestination } from './export-destination';
import type { ITracingProject } from './tracing-project';
import { Filter } from './filter';
import type { BulkExportConfig } from './generated/bulk-export';
import { isUuid } from '../api/ids';

/** A filter: built with `Filter.*` (`Filter.and(Filter.eq('run_type', 'llm'), ...)`), or an expression string. */
export type ExportFilter = Filter | string;

/** A point in time: a Date, or an ISO 8601 timestamp such as `2025-01-01T00:00:00Z`. */
export type ExportTime = Date | string;

/** Props shared by {@link ScheduledExport} and {@link BulkExport}. */
export interface ExportQueryProps {
  /** Where the Parquet files go. */
  readonly destination: IExportDestination;
  /**
   * The tracing project whose runs are exported: a `TracingProject`, or `TracingProject.fromName(...)`. Give it or
   * `tracingProjectId`.
   * @default none (`tracingProjectId` is given)
   */
  readonly tracingProject?: ITracingProject;
  /**
   * The tracing project (session) whose runs are exported, by its id (a UUID). Give it or `tracingProject`.
   * @default none (`tracingProject` is given)
   */
  readonly tracingProjectId?: string;
  /**
   * Only these fields become columns, e.g. `['id', 'name', 'start_time']`; leaving out `inputs` and `outputs` makes
   * exports much smaller. A name that is no exportable field fails at synth.
   * @default every exportable field
   */
  readonly fields?: string[];
  /**
   * Only runs matching this filter.
   * @default every run of the range
   */
  readonly filter?: Filter | string;
  /**
   * Parquet layout, e.g. `v2_beta` (typed columns for JSON and timestamps, Hive-compliant folders).
   * @default the platform's choice (nothing is sent)
   */
  readonly formatVersion?: string;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** The resource attributes of the shared props, recording every violation. */
export function queryAttributes(
  props: ExportQueryProps,
  violations: Violations,
  scope: IConstruct,
): Pick<BulkExportConfig, 'destinationId' | 'sessionId' | 'filter' | 'exportFields' | 'formatVersion' | 'provider'> {
  if ((props.tracingProject === undefined) === (props.tracingProjectId === undefined)) {
    violations.add(props.tracingProject ? 'tracingProjectId' : 'tracingProject', messages.tracingProjectGiven(props.tracingProject !== undefined));
  }
  // spec: Bulk export, `session_id` is a string (uuid)
  violations.check('tracingProjectId', props.tracingProjectId, (id) => (isUuid(id) ? undefined : messages.notUuid('a tracing project id', id)));
  // a list given as a token (a variable of list type) is checked by the provider at plan
  if (props.fields !== undefined && !isToken(props.fields)) {
    if (Array.isArray(props.fields)) checkFields(props.fields, violations, scope);
    else violations.add('fields', messages.notList(props.fields, "['id', 'name', 'start_time']"));
  }
  warnIfProblem(scope, 'formatVersion', props.formatVersion, (v) =>
    (FORMAT_VERSIONS as readonly string[]).includes(v) ? undefined : messages.unknownFormatVersion(v, FORMAT_VERSIONS),
  );
  return {
    destinationId: props.destination.destinationId,
    // one of the two, checked above
    sessionId: props.tracingProject?.tracingProjectId ?? props.tracingProjectId!,
    filter: filterText(props.filter, violations, scope),
    exportFields: props.fields && [...props.fields],
    formatVersion: props.formatVersion,
    provider: props.provider,
  };
}

function checkFields(fields: readonly string[], violations: Violations, scope: IConstruct): void {
  warnIfProblem(scope, 'fields', fields.length, (count) => (count === 0 ? messages.noFields() : undefined));
  fields.forEach((field, index) => {
    // spec: Exportable fields, the table of the columns of the Parquet files
    violations.check(`fields[${index}]`, field, (f) => (isExportableField(f) ? undefined : messages.unknownField(f, EXPORTABLE_FIELD_NAMES)));
    warnIfProblem(scope, `fields[${index}]`, field, (f) => (fields.indexOf(f) !== index ? messages.duplicateField(f) : undefined));
  });
}

function filterText(filter: ExportFilter | undefined, violations: Violations, scope: IConstruct): string | undefined {
  const warn = (message: string): void => Annotations.of(scope).addWarning(message);
  if (filter === undefined) return undefined;
  let text: string;
  try {
    // an expression built by hand (which earlier versions took) is read as Filter.* builds one
    text = typeof filter === 'string' ? filter : filter instanceof Filter ? filter.toString() : renderFilter(filter as FilterExpr);
  } catch {
    // no expression at all
    violations.add('filter', messages.notFilterExpr());
    return undefined;
  }
  // a value known only at deploy: the provider checks the filter at plan, once it is known
  const review = holdsNumberToken(text) || isToken(text) ? {} : reviewFilter(text);
  violations.check('filter', text, (t) => {
    if (holdsNumberToken(t)) return undefined;
    if (t.trim() === '') return messages.emptyFilter();
    // spec: Bulk export, `filter`: function-style operators
    return review.shape && messages.badFilter(review.shape.message);
  });
  warnIfProblem(scope, 'filter', review.unknown, (unknown) => messages.filterNotKnown(unknown.message));
  const stable = nfcStable(text);
  if (stable !== text) warn(messages.filterNotNfc());
  const literal = terraformLiteral(stable);
  if (literal !== stable) warn(messages.filterTemplateSyntax());
  return literal;
}

/** Numbers in text form, as a number token written into a template string reads (`-1.8881545897087626e+289`). */
const NUMBER_IN_TEXT = /-?\d+(?:\.\d+)?e[+-]?\d+/gi;

/** Whether `text` holds a number token (`${variable.numberValue}` in a template string), which cdktf resolves at synth. */
function holdsNumberToken(text: string): boolean {
  return (text.match(NUMBER_IN_TEXT) ?? []).some((n) => Tokenization.reverseNumber(Number(n)) !== undefined);
}

/** A string token in text (`${TfToken[TOKEN.1]}`), which cdktf replaces with a Terraform expression. */
const STRING_TOKEN = /\$\{TfToken\[[^\]]*\]\}/g;

/**
 * `text` as Terraform reads it literally: in Terraform's JSON syntax every string is a template, in which `${` and
 * `%{` start an expression or a directive. Outside the tokens their `$` and `%` are written as the filter language's
 * `\u0024` and `\u0025` escapes (valid in its string literals, the only place the filter can hold them): the doubled
 * forms Terraform knows (`$${`) still read as `${` to cdktf, which would then write the next token bare.
 */
function terraformLiteral(text: string): string {
  const escape = (literal: string): string => literal.replace(/([$%])\{/g, (_, sign: string) => `${sign === '$' ? '\\u0024' : '\\u0025'}{`);
  let out = '';
  let last = 0;
  for (const token of text.matchAll(STRING_TOKEN)) {
    // a `$` just before a token would make its `${` the escape `$${`, which Terraform writes as text
    out += escape(text.slice(last, token.index)).replace(/\$+$/, (signs) => '\\u0024'.repeat(signs.length)) + token[0];
    last = token.index! + token[0].length;
  }
  return out + escape(text.slice(last));
}

/**
 * Terraform turns every string into its Unicode NFC form, which would change a filter value written in another one
 * (`"Cafe\u0301"` would match `"Café"`): the non-ASCII characters of such a filter (only string literals hold them)
 * are written as `\uXXXX` escapes, which the filter language reads back as the same characters.
 */
function nfcStable(text: string): string {
  if (text.normalize('NFC') === text) return text;
  return text.replace(/[^\u0000-\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
