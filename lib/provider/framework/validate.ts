/**
 * Runs the checks declared on attributes (`oneOf`, `min`/`max`, `integer`, `minItems`/`maxItems`, `validate`) over a
 * configuration, skipping unknown and null values, and reports each failure against its attribute; and finds the null
 * elements of lists, sets and maps, which no attribute takes.
 */
import { CtyNumber } from '../cty/number';
import { UNKNOWN, valueEquals, type CtyObject, type CtyValue } from '../cty/value';
import { Diagnostics, formatPath, type AttributePath } from './diagnostics';
import { attributeType, type Attribute, type Attributes } from './schema';

/** The elements of a list, set or map value with their index or key. */
const entriesOf = (value: CtyValue): [string | number, CtyValue][] =>
  Array.isArray(value) ? (value as CtyValue[]).map((v, i) => [i, v]) : Object.entries(value as CtyObject);

/** Checks `config` (an object value of `attributes`) and adds a diagnostic per failed check. */
export function validateAttributes(attributes: Attributes, config: CtyValue, diagnostics: Diagnostics, path: AttributePath = []): void {
  if (config === null || config === UNKNOWN) return;
  const object = config as CtyObject;
  for (const [name, a] of Object.entries(attributes)) {
    validateAttribute(a, object[name] ?? null, diagnostics, [...path, { attribute: name }]);
  }
}

function validateAttribute(a: Attribute, value: CtyValue, diagnostics: Diagnostics, path: AttributePath): void {
  if (value === null || value === UNKNOWN) return;
  const report = (problem: string | undefined): void => {
    if (problem) diagnostics.error(`Invalid ${formatPath(path)}`, problem, path);
  };
  const secret = 'sensitive' in a && (a.sensitive || a.writeOnly);
  switch (a.kind) {
    case 'string': {
      const s = value as string;
      if (a.oneOf && !a.oneOf.includes(s)) {
        const allowed = a.oneOf.map((v) => JSON.stringify(v)).join(', ');
        report(`must be one of ${allowed}${secret ? '' : `; got ${JSON.stringify(s)}`}.`);
      } else report(a.validate?.(s));
      return;
    }
    case 'number': {
      const n = value as CtyNumber;
      // a whole number travels to the API as a JSON number, exact only within JavaScript's safe integers
      const min = a.integer ? Math.max(a.min ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER) : a.min;
      const max = a.integer ? Math.min(a.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) : a.max;
      if (a.integer && !n.isInteger()) report(`must be a whole number${secret ? '' : `; got ${n.text}`}.`);
      else if (min !== undefined && n.compare(CtyNumber.fromNumber(min)) < 0) report(`must be at least ${min}${secret ? '' : `; got ${n.text}`}.`);
      else if (max !== undefined && n.compare(CtyNumber.fromNumber(max)) > 0) report(`must be at most ${max}${secret ? '' : `; got ${n.text}`}.`);
      else report(a.validate?.(n.toNumber()));
      return;
    }
    case 'bool':
      return;
    case 'list':
    case 'set':
    case 'map': {
      const entries = entriesOf(value);
      if (a.minItems !== undefined && entries.length < a.minItems) report(`needs at least ${a.minItems} element(s).`);
      if (a.maxItems !== undefined && entries.length > a.maxItems) report(`allows at most ${a.maxItems} element(s).`);
      if (!a.validateElement) return;
      for (const [key, element] of entries) {
        if (element === null || element === UNKNOWN) continue;
        const plain = element instanceof CtyNumber ? element.toNumber() : element;
        const problem = a.validateElement(plain);
        const at: AttributePath = [...path, a.kind === 'map' ? { key: String(key) } : { index: Number(key) }];
        if (problem) diagnostics.error(`Invalid ${formatPath(at)}`, problem, a.kind === 'set' ? path : at);
      }
      return;
    }
    case 'nested':
    case 'block': {
      if (a.nesting === 'single') return validateAttributes(a.attributes, value, diagnostics, path);
      const entries = entriesOf(value);
      for (const [key, element] of entries) {
        if (a.nesting !== 'set') {
          validateAttributes(a.attributes, element, diagnostics, [...path, a.nesting === 'map' ? { key: String(key) } : { index: Number(key) }]);
          continue;
        }
        // Set elements have no stable address: report against the set itself.
        const inner = new Diagnostics();
        validateAttributes(a.attributes, element, inner, path);
        diagnostics.add(...inner.items.map((d) => ({ ...d, path })));
      }
      return;
    }
  }
}

const NULL_ELEMENT = 'is null: give it a value or leave it out (is its variable set?).';
/** What a required attribute inside an object that is null is told (a variable left unset). */
export const NULL_REQUIRED = 'is required, and its value is null: give it a value (is its variable set?).';

/**
 * Reports each null element of a list, set or map of `config`, at the element, and each required attribute of a
 * nested object that is null: no API field takes one, and the API would refuse it at apply without saying which.
 * Called when a resource is planned, for the attributes whose value goes to the API: every one when it is created; on
 * an update, those that change (not write-only ones, whose changes the resource tells). Not at validation, nor for what does not change: terraform validates and plans the
 * configuration before a destroy too, and a configuration whose variable is unset can still be destroyed.
 */
export function reportNullElements(
  attributes: Attributes,
  config: CtyValue,
  diagnostics: Diagnostics,
  prior: CtyValue = null,
  path: AttributePath = [],
): void {
  if (config === null || config === UNKNOWN) return;
  for (const [name, a] of Object.entries(attributes)) {
    if (prior !== null && ((a.kind !== 'block' && a.writeOnly) || valueEquals((config as CtyObject)[name] ?? null, (prior as CtyObject)[name] ?? null, attributeType(a)))) {
      continue;
    }
    const value = (config as CtyObject)[name] ?? null;
    const here: AttributePath = [...path, { attribute: name }];
    // terraform itself refuses a required top-level argument that is null, not one inside an object
    if (value === null && path.length > 0 && a.kind !== 'block' && a.required) {
      diagnostics.error(`Missing ${formatPath(here)}`, NULL_REQUIRED, here);
      continue;
    }
    if (value === null || value === UNKNOWN) continue;
    if (a.kind === 'list' || a.kind === 'set' || a.kind === 'map') {
      const entries = entriesOf(value);
      for (const [key, element] of entries) {
        if (element !== null) continue;
        const at: AttributePath = [...here, a.kind === 'map' ? { key: String(key) } : { index: Number(key) }];
        diagnostics.error(`Invalid ${formatPath(at)}`, NULL_ELEMENT, a.kind === 'set' ? here : at);
      }
    } else if ((a.kind === 'nested' || a.kind === 'block') && a.nesting === 'single') {
      reportNullElements(a.attributes, value, diagnostics, null, here);
    } else if (a.kind === 'nested' || a.kind === 'block') {
      const entries = entriesOf(value);
      for (const [key, element] of entries) {
        const at: AttributePath = a.nesting === 'set' ? here : [...here, a.nesting === 'map' ? { key: String(key) } : { index: Number(key) }];
        reportNullElements(a.attributes, element, diagnostics, null, at);
      }
    }
  }
}
