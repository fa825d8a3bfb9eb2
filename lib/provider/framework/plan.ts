/**
 * The default plan, following terraform-plugin-framework's conventions, computed from terraform's proposed new
 * state before a resource's own `plan` refines it:
 * - defaults of optional+computed attributes are filled in when the configuration leaves them null;
 * - write-only attributes are null (they live in the configuration only);
 * - when nothing changed, the prior state is the plan;
 * - otherwise (and on create) computed attributes the configuration leaves null become unknown, except that
 *   `useStateForUnknown` ones keep their prior value on update, when it is not null;
 * - `requiresReplace` attributes whose planned value differs from the prior one are listed for replacement
 *   (computed from the configuration's values, so a computed attribute turning unknown never forces it), unless
 *   the two mean the same (a string attribute's `sameValue`, an `unordered` list's elements in another order).
 */
import { UNKNOWN, objectFrom, valueEquals, type CtyObject, type CtyValue } from '../cty/value';
import type { AttributePath } from './diagnostics';
import { sameElements } from './answers';
import { fromModel } from './model';
import { attributeType, objectType, type Attribute, type Attributes } from './schema';

/** The default plan of one resource instance. */
export interface DefaultPlan {
  /** The planned state, or null when the resource is being destroyed. */
  readonly planned: CtyValue;
  /** Attributes whose change forces replacement. */
  readonly requiresReplace: AttributePath[];
}

/** Plans a change from `prior` (null on create) to `proposed` (null on destroy) for `config`. */
export function defaultPlan(attributes: Attributes, prior: CtyValue, proposed: CtyValue, config: CtyValue): DefaultPlan {
  if (proposed === null) return { planned: null, requiresReplace: [] };
  const base = withDefaults(attributes, proposed, config);
  if (prior !== null && valueEquals(base, prior, objectType(attributes))) return { planned: prior, requiresReplace: [] };
  const requiresReplace = prior === null ? [] : replacePaths(attributes, base, prior, []);
  return { planned: markComputed(attributes, base, config, prior), requiresReplace };
}

/** Nulls write-only attributes, everywhere in a value of `attributes`. */
export function nullWriteOnly(attributes: Attributes, value: CtyValue): CtyValue {
  return mapObject(attributes, value, null, (a, v) => (!isBlock(a) && a.writeOnly ? null : v));
}

const isBlock = (a: Attribute): a is Extract<Attribute, { kind: 'block' }> => a.kind === 'block';
const nestedOf = (a: Attribute): Attributes | undefined => (a.kind === 'nested' || a.kind === 'block' ? a.attributes : undefined);

/**
 * Rebuilds an object value attribute by attribute with `f`, recursing into nested objects first. `config` is the
 * matching configuration value (null when absent), handed to `f` per attribute.
 */
function mapObject(
  attributes: Attributes,
  value: CtyValue,
  config: CtyValue,
  f: (a: Attribute, v: CtyValue, c: CtyValue) => CtyValue,
): CtyValue {
  if (value === null || value === UNKNOWN) return value;
  const object = value as CtyObject;
  const cfg = config !== null && config !== UNKNOWN ? (config as CtyObject) : undefined;
  return objectFrom(
    Object.entries(attributes).map(([name, a]) => {
      const c = cfg?.[name] ?? null;
      return [name, f(a, mapNested(a, object[name] ?? null, c, f), c)];
    }),
  );
}

function mapNested(a: Attribute, value: CtyValue, config: CtyValue, f: Parameters<typeof mapObject>[3]): CtyValue {
  const nested = nestedOf(a);
  if (!nested || value === null || value === UNKNOWN) return value;
  if (a.kind !== 'block' && a.kind !== 'nested') return value;
  if (a.nesting === 'single') return mapObject(nested, value, config, f);
  const cfg = config !== null && config !== UNKNOWN ? config : undefined;
  if (a.nesting === 'map') {
    const c = cfg as CtyObject | undefined;
    return objectFrom(Object.entries(value as CtyObject).map(([k, v]) => [k, mapObject(nested, v, c?.[k] ?? null, f)]));
  }
  // Set elements have no stable position: each element is its own configuration.
  const c = cfg as readonly CtyValue[] | undefined;
  return (value as readonly CtyValue[]).map((v, i) => mapObject(nested, v, a.nesting === 'set' ? v : (c?.[i] ?? null), f));
}

function withDefaults(attributes: Attributes, proposed: CtyValue, config: CtyValue): CtyValue {
  return mapObject(attributes, proposed, config, (a, v, c) => {
    if (isBlock(a)) return v;
    if (a.writeOnly) return null;
    if ('default' in a && a.default !== undefined && c === null) return fromModel(a.default, attributeType(a));
    return v;
  });
}

function markComputed(attributes: Attributes, value: CtyValue, config: CtyValue, prior: CtyValue): CtyValue {
  if (value === null || value === UNKNOWN) return value;
  const object = value as CtyObject;
  const cfg = config !== null && config !== UNKNOWN ? (config as CtyObject) : undefined;
  const before = prior !== null && prior !== UNKNOWN ? (prior as CtyObject) : undefined;
  return objectFrom(
    Object.entries(attributes).map(([name, a]): [string, CtyValue] => {
      const v = object[name] ?? null;
      const c = cfg?.[name] ?? null;
      const p = before?.[name] ?? null;
      if (!isBlock(a) && a.computed && c === null) {
        if ('default' in a && a.default !== undefined) return [name, v];
        // a null prior value stays unknown: the update may be what sets it (as terraform-plugin-framework does)
        if (a.useStateForUnknown && before && p !== UNKNOWN && p !== null) return [name, p];
        return [name, UNKNOWN];
      }
      return [name, markNested(a, v, c, p)];
    }),
  );
}

function markNested(a: Attribute, value: CtyValue, config: CtyValue, prior: CtyValue): CtyValue {
  const nested = nestedOf(a);
  if (!nested || value === null || value === UNKNOWN || (a.kind !== 'nested' && a.kind !== 'block')) return value;
  if (a.nesting === 'single') return markComputed(nested, value, config, prior);
  const known = (x: CtyValue): boolean => x !== null && x !== UNKNOWN;
  if (a.nesting === 'map') {
    const c = known(config) ? (config as CtyObject) : undefined;
    const p = known(prior) ? (prior as CtyObject) : undefined;
    return objectFrom(Object.entries(value as CtyObject).map(([k, v]) => [k, markComputed(nested, v, c?.[k] ?? null, p?.[k] ?? null)]));
  }
  const c = known(config) ? (config as readonly CtyValue[]) : undefined;
  const p = known(prior) && a.nesting === 'list' ? (prior as readonly CtyValue[]) : undefined;
  return (value as readonly CtyValue[]).map((v, i) =>
    markComputed(nested, v, a.nesting === 'set' ? v : (c?.[i] ?? null), p?.[i] ?? null),
  );
}

/** Whether an attribute or anything nested in it forces replacement. */
function forcesReplacement(a: Attribute): boolean {
  if (a.requiresReplace) return true;
  const nested = nestedOf(a);
  return !!nested && Object.values(nested).some(forcesReplacement);
}

function replacePaths(attributes: Attributes, planned: CtyValue, prior: CtyValue, path: AttributePath): AttributePath[] {
  if (planned === null || prior === null || planned === UNKNOWN || prior === UNKNOWN) return [];
  const paths: AttributePath[] = [];
  for (const [name, a] of Object.entries(attributes)) {
    if (!forcesReplacement(a)) continue;
    const here: AttributePath = [...path, { attribute: name }];
    const v = (planned as CtyObject)[name] ?? null;
    const p = (prior as CtyObject)[name] ?? null;
    if (valueEquals(v, p, attributeType(a))) continue;
    if (a.kind === 'string' && typeof v === 'string' && typeof p === 'string' && a.sameValue?.(v, p)) continue;
    if (a.kind === 'list' && a.unordered && sameElements(v, p, a.element.cty)) continue;
    const single = (a.kind === 'nested' || a.kind === 'block') && a.nesting === 'single';
    // Inside one nested object the exact attribute is known; inside collections the whole collection is replaced.
    if (!a.requiresReplace && single && v !== null && p !== null && v !== UNKNOWN && p !== UNKNOWN) {
      paths.push(...replacePaths(a.attributes, v, p, here));
    } else {
      paths.push(here);
    }
  }
  return paths;
}
