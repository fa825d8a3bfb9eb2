/**
 * cty types: Terraform's type system as the plugin protocol carries it. Types travel as JSON inside the schema
 * (`"string"`, `["list","number"]`, `["object",{"a":"bool"}]`) and inside dynamically typed values.
 */

/** A cty type. */
export type CtyType =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dynamic' }
  | { readonly kind: 'list' | 'set' | 'map'; readonly element: CtyType }
  | { readonly kind: 'object'; readonly attributes: Readonly<Record<string, CtyType>> }
  | { readonly kind: 'tuple'; readonly elements: readonly CtyType[] };

/** Constructors of cty types. */
export const cty = {
  string: { kind: 'string' } as CtyType,
  number: { kind: 'number' } as CtyType,
  bool: { kind: 'bool' } as CtyType,
  dynamic: { kind: 'dynamic' } as CtyType,
  list: (element: CtyType): CtyType => ({ kind: 'list', element }),
  set: (element: CtyType): CtyType => ({ kind: 'set', element }),
  map: (element: CtyType): CtyType => ({ kind: 'map', element }),
  object: (attributes: Record<string, CtyType>): CtyType => ({ kind: 'object', attributes }),
  tuple: (elements: CtyType[]): CtyType => ({ kind: 'tuple', elements }),
};

/** The JSON form of a type, as in `Schema.Attribute.type`. */
export type CtyTypeJson = string | [string, unknown];

/** A type to its JSON form. */
export function typeToJson(type: CtyType): CtyTypeJson {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
    case 'dynamic':
      return type.kind;
    case 'list':
    case 'set':
    case 'map':
      return [type.kind, typeToJson(type.element)];
    case 'object':
      return ['object', Object.fromEntries(Object.entries(type.attributes).map(([k, t]) => [k, typeToJson(t)]))];
    case 'tuple':
      return ['tuple', type.elements.map(typeToJson)];
  }
}

/** A type from its JSON form (`["object", {...}, ["optional attrs"]]` is accepted; optionality is dropped). */
export function typeFromJson(json: unknown): CtyType {
  if (typeof json === 'string') {
    if (json === 'string' || json === 'number' || json === 'bool' || json === 'dynamic') return { kind: json };
  } else if (Array.isArray(json) && typeof json[0] === 'string') {
    const [kind, arg] = json as [string, unknown];
    if (kind === 'list' || kind === 'set' || kind === 'map') return { kind, element: typeFromJson(arg) };
    if (kind === 'object' && arg && typeof arg === 'object') {
      const attributes = Object.fromEntries(Object.entries(arg).map(([k, t]) => [k, typeFromJson(t)]));
      return { kind: 'object', attributes };
    }
    if (kind === 'tuple' && Array.isArray(arg)) return { kind: 'tuple', elements: arg.map(typeFromJson) };
  }
  throw new Error(`not a cty type: ${JSON.stringify(json)}`);
}

/** Whether two types are the same. */
export function typeEquals(a: CtyType, b: CtyType): boolean {
  return JSON.stringify(typeToJson(a)) === JSON.stringify(typeToJson(b));
}

/** A type as users read it in messages (`list of string`, `object`). */
export function typeName(type: CtyType): string {
  switch (type.kind) {
    case 'list':
    case 'set':
    case 'map':
      return `${type.kind} of ${typeName(type.element)}`;
    default:
      return type.kind;
  }
}
