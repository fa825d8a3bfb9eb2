/**
 * Diagnostics: what the provider tells the user. One with an attribute path is shown against that line of the
 * configuration. Handlers add them to a {@link Diagnostics} collector or throw a {@link DiagnosticError}; any other
 * exception is turned into an error diagnostic too, because a failed gRPC call reaches the user as "Plugin error".
 */
import type { ProtoMessage } from '../plugin/protobuf';

/** One step of an attribute path: an attribute, a map key, or a list index. */
export type PathStep = { readonly attribute: string } | { readonly key: string } | { readonly index: number };

/** A path into a resource's attributes. */
export type AttributePath = readonly PathStep[];

/** A path, or its text form: `resource_spec.min_scale`, `secrets["API_KEY"]`, `rules[0].name`. */
export type PathLike = string | AttributePath;

/** A message for the user. */
export interface Diagnostic {
  /** Errors stop the operation; warnings are shown and let it continue. */
  readonly severity: 'error' | 'warning';
  /** One line: what went wrong. */
  readonly summary: string;
  /** Why, and what to do about it. */
  readonly detail?: string;
  /** The attribute it is about. */
  readonly path?: AttributePath;
}

const STEP = /\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** Parses the text form of a path; throws on malformed text. */
export function parsePath(text: string): AttributePath {
  const steps: PathStep[] = [];
  let pos = 0;
  while (pos < text.length) {
    STEP.lastIndex = pos;
    const m = STEP.exec(text);
    if (!m || (pos === 0 && m[0].startsWith('.')) || (pos > 0 && m[1] !== undefined && !m[0].startsWith('.'))) {
      throw new Error(`malformed attribute path ${JSON.stringify(text)} at offset ${pos}`);
    }
    if (m[1] !== undefined) steps.push({ attribute: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else steps.push({ key: JSON.parse(m[3]!) as string });
    pos = STEP.lastIndex;
  }
  return steps;
}

/** The text form of a path. */
export function formatPath(path: AttributePath): string {
  return path
    .map((s, i) => ('attribute' in s ? `${i ? '.' : ''}${s.attribute}` : 'index' in s ? `[${s.index}]` : `[${JSON.stringify(s.key)}]`))
    .join('');
}

/** A path from its text or step form. */
export function toPath(path: PathLike): AttributePath {
  return typeof path === 'string' ? parsePath(path) : path;
}

/** Collects diagnostics during one call. */
export class Diagnostics {
  /** Everything collected so far. */
  readonly items: Diagnostic[] = [];

  /** Adds an error. */
  error(summary: string, detail?: string, path?: PathLike): this {
    this.items.push({ severity: 'error', summary, ...(detail ? { detail } : {}), ...(path ? { path: toPath(path) } : {}) });
    return this;
  }

  /** Adds a warning. */
  warning(summary: string, detail?: string, path?: PathLike): this {
    this.items.push({ severity: 'warning', summary, ...(detail ? { detail } : {}), ...(path ? { path: toPath(path) } : {}) });
    return this;
  }

  /** Adds diagnostics collected elsewhere. */
  add(...items: Diagnostic[]): this {
    this.items.push(...items);
    return this;
  }

  /** Whether any error was collected. */
  hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }
}

/** Thrown by a handler to stop with one error diagnostic. */
export class DiagnosticError extends Error {
  /** The attribute it is about. */
  readonly path?: AttributePath;

  constructor(
    /** One line: what went wrong. */
    readonly summary: string,
    /** Why, and what to do about it. */
    readonly detail?: string,
    path?: PathLike,
  ) {
    super(detail ? `${summary}: ${detail}` : summary);
    if (path) this.path = toPath(path);
  }
}

/** Any thrown value as an error diagnostic; `summary` says what was being done when it failed. */
export function errorToDiagnostic(err: unknown, summary: string): Diagnostic {
  if (err instanceof DiagnosticError) {
    return { severity: 'error', summary: err.summary, ...(err.detail ? { detail: err.detail } : {}), ...(err.path ? { path: err.path } : {}) };
  }
  const detail = err instanceof Error ? err.message : String(err);
  return { severity: 'error', summary, detail };
}

/** Diagnostics as tfplugin6 `Diagnostic` messages. */
export function diagnosticsToProto(items: readonly Diagnostic[]): ProtoMessage[] {
  return items.map((d) => ({
    severity: d.severity === 'error' ? 1 : 2,
    summary: d.summary,
    detail: d.detail ?? '',
    ...(d.path && d.path.length ? { attribute: pathToProto(d.path) } : {}),
  }));
}

/** A path as a tfplugin6 `AttributePath` message. */
export function pathToProto(path: AttributePath): ProtoMessage {
  return {
    steps: path.map((s) =>
      'attribute' in s ? { attribute_name: s.attribute } : 'index' in s ? { element_key_int: s.index } : { element_key_string: s.key },
    ),
  };
}
