/**
 * The declarative schema: one definition per resource, data source or provider, from which the tfplugin6 schema
 * (`schema-proto.ts`), the TypeScript model ({@link ModelOf}), the zod model (`zod-model.ts`) and the documentation
 * table (`docs.ts`) are all derived. Definitions are plain data; this module loads nothing.
 */
import { cty, type CtyType } from '../cty/types';

/** Flags and documentation common to every attribute. */
export interface AttributeFlags {
  /** What the attribute is, in markdown (shown in docs and by language servers). */
  readonly description: string;
  /** The configuration must set it. */
  readonly required?: boolean;
  /** The configuration may set it. */
  readonly optional?: boolean;
  /** The provider sets it (with `optional`: when the configuration leaves it null). */
  readonly computed?: boolean;
  /** Hidden in plan output (still stored in state: use `writeOnly` for secrets). */
  readonly sensitive?: boolean;
  /** Sent by terraform >= 1.11 in the configuration only; never stored in plan or state. */
  readonly writeOnly?: boolean;
  /** A change of this attribute (on an existing resource) destroys and re-creates it. */
  readonly requiresReplace?: boolean;
  /** On update, a computed attribute keeps its prior value instead of becoming unknown (ids, creation times). */
  readonly useStateForUnknown?: boolean;
  /** Why the attribute is deprecated and what to use instead. */
  readonly deprecated?: string;
}


/** A string attribute. */
export interface StringAttribute extends AttributeFlags {
  readonly kind: 'string';
  /** Value planned when the configuration leaves an optional+computed attribute null. */
  readonly default?: string;
  /** The allowed values. */
  readonly oneOf?: readonly string[];
  /** Extra check of a known, non-null value: returns the error shown against the attribute, or undefined. */
  validate?(value: string): string | undefined;
  /**
   * Whether two values mean the same (one instant in two notations): a change between them is planned in place,
   * even on a `requiresReplace` attribute, so that, for example, an import does not replace what it imported.
   */
  sameValue?(a: string, b: string): boolean;
}

/** A number attribute. */
export interface NumberAttribute extends AttributeFlags {
  readonly kind: 'number';
  /** Value planned when the configuration leaves an optional+computed attribute null. */
  readonly default?: number;
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Smallest allowed value. */
  readonly min?: number;
  /** Largest allowed value. */
  readonly max?: number;
  /** Extra check of a known, non-null value: returns the error shown against the attribute, or undefined. */
  validate?(value: number): string | undefined;
}

/** A bool attribute. */
export interface BoolAttribute extends AttributeFlags {
  readonly kind: 'bool';
  /** Value planned when the configuration leaves an optional+computed attribute null. */
  readonly default?: boolean;
}

/** The element type of a collection attribute, with the TypeScript type of its values. */
export interface ElementType<T> {
  /** The cty type. */
  readonly cty: CtyType;
  /** Type-level only: the TypeScript type of an element. */
  readonly __model?: T;
}

/** A list, set or map attribute of plain elements. */
export interface CollectionAttribute<N extends 'list' | 'set' | 'map', E> extends AttributeFlags {
  readonly kind: N;
  /** The element type. */
  readonly element: ElementType<E>;
  /** Fewest elements allowed. */
  readonly minItems?: number;
  /** Most elements allowed. */
  readonly maxItems?: number;
  /** Extra check of each known element: returns the error shown against the element, or undefined. */
  validateElement?(value: E): string | undefined;
  /**
   * (Lists) The platform may answer the elements in another order: a list of the same elements keeps the order of the
   * plan or the prior state (see `answers.ts`).
   */
  readonly unordered?: boolean;
}

/** An attribute holding nested attributes (protocol 6 nested types). */
export interface NestedAttribute<N extends Nesting, A extends Attributes> extends AttributeFlags {
  readonly kind: 'nested';
  /** One object, or a list, set or map of them. */
  readonly nesting: N;
  /** The nested attributes. */
  readonly attributes: A;
}

/** A nested block (the older form of nesting; never computed). */
export interface BlockDefinition<N extends 'single' | 'list' | 'set', A extends Attributes> {
  readonly kind: 'block';
  /** One block, or a list or set of them. */
  readonly nesting: N;
  /** The block's attributes. */
  readonly attributes: A;
  /** What the block is, in markdown. */
  readonly description: string;
  /** Fewest blocks allowed. */
  readonly minItems?: number;
  /** Most blocks allowed. */
  readonly maxItems?: number;
  /** Replace the resource when the block changes. */
  readonly requiresReplace?: boolean;
}

/** How nested attributes nest. */
export type Nesting = 'single' | 'list' | 'set' | 'map';

/** Any attribute or block. */
export type Attribute =
  | StringAttribute
  | NumberAttribute
  | BoolAttribute
  | CollectionAttribute<'list' | 'set' | 'map', unknown>
  | NestedAttribute<Nesting, Attributes>
  | BlockDefinition<'single' | 'list' | 'set', Attributes>;

/** Attributes (and blocks) by name. */
export type Attributes = { readonly [name: string]: Attribute };

/** A versioned schema of a resource, data source or provider. */
export interface Schema<A extends Attributes = Attributes> {
  /** Schema version (resources): bump it and add an upgrader when the state's shape changes. */
  readonly version: number;
  /** What the thing is, in markdown. */
  readonly description: string;
  /** The attributes and blocks. */
  readonly attributes: A;
}

// ---- the TypeScript model ----

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};

/**
 * The value of a `oneOf` attribute: one of the listed values as configured, or, read from the platform, a value it
 * added since (kept as the string it is).
 */
export type OneOf<U extends string> = U | (string & {});

/** The TypeScript type of one attribute's value (before nullability). */
export type ValueOf<A> = A extends { kind: 'string'; oneOf: readonly (infer U extends string)[] }
  ? OneOf<U>
  : A extends { kind: 'string' }
    ? string
    : A extends { kind: 'number' }
      ? number
      : A extends { kind: 'bool' }
        ? boolean
        : A extends CollectionAttribute<'list' | 'set', infer E>
          ? E[]
          : A extends CollectionAttribute<'map', infer E>
            ? Record<string, E>
            : A extends { kind: 'nested' | 'block'; nesting: 'single'; attributes: infer N extends Attributes }
              ? ModelOf<N>
              : A extends { kind: 'nested' | 'block'; nesting: 'list' | 'set'; attributes: infer N extends Attributes }
                ? ModelOf<N>[]
                : A extends { kind: 'nested'; nesting: 'map'; attributes: infer N extends Attributes }
                  ? Record<string, ModelOf<N>>
                  : never;

/** Required attributes and list/set blocks are never null; everything else may be. */
type NullOf<A> = A extends { required: true } ? never : A extends { kind: 'block'; nesting: 'list' | 'set' } ? never : null;

/** The TypeScript model of a set of attributes: what handlers read and return. */
export type ModelOf<A extends Attributes> = Simplify<{ [K in keyof A]: ValueOf<A[K]> | NullOf<A[K]> }>;

/** The model of a schema. */
export type SchemaModel<S extends Schema> = ModelOf<S['attributes']>;

// ---- builders ----

type Options<T> = Omit<T, 'kind'>;

/** Element types of collection attributes. */
export const element = {
  string: { cty: cty.string } as ElementType<string>,
  number: { cty: cty.number } as ElementType<number>,
  bool: { cty: cty.bool } as ElementType<boolean>,
  list: <E>(e: ElementType<E>): ElementType<E[]> => ({ cty: cty.list(e.cty) }),
  set: <E>(e: ElementType<E>): ElementType<E[]> => ({ cty: cty.set(e.cty) }),
  map: <E>(e: ElementType<E>): ElementType<Record<string, E>> => ({ cty: cty.map(e.cty) }),
  object: <const R extends Record<string, ElementType<unknown>>>(
    attributes: R,
  ): ElementType<{ -readonly [K in keyof R]: (R[K] extends ElementType<infer E> ? E : never) | null }> => ({
    cty: cty.object(Object.fromEntries(Object.entries(attributes).map(([k, e]) => [k, e.cty]))),
  }),
};

/** Attribute builders: `attr.string({ required: true, description: '…' })`. */
export const attr = {
  string: <const O extends Options<StringAttribute>>(o: O): O & { kind: 'string' } => ({ ...o, kind: 'string' }),
  number: <const O extends Options<NumberAttribute>>(o: O): O & { kind: 'number' } => ({ ...o, kind: 'number' }),
  bool: <const O extends Options<BoolAttribute>>(o: O): O & { kind: 'bool' } => ({ ...o, kind: 'bool' }),
  list: <E, const O extends Options<CollectionAttribute<'list', E>>>(e: ElementType<E>, o: Omit<O, 'element'>) =>
    ({ ...o, kind: 'list', element: e }) as O & CollectionAttribute<'list', E>,
  set: <E, const O extends Options<CollectionAttribute<'set', E>>>(e: ElementType<E>, o: Omit<O, 'element'>) =>
    ({ ...o, kind: 'set', element: e }) as O & CollectionAttribute<'set', E>,
  map: <E, const O extends Options<CollectionAttribute<'map', E>>>(e: ElementType<E>, o: Omit<O, 'element'>) =>
    ({ ...o, kind: 'map', element: e }) as O & CollectionAttribute<'map', E>,
  /** One nested object. */
  object: <const A extends Attributes, const O extends AttributeFlags>(attributes: A, o: O) =>
    ({ ...o, kind: 'nested', nesting: 'single', attributes }) as O & NestedAttribute<'single', A>,
  /** A list of nested objects. */
  listNested: <const A extends Attributes, const O extends AttributeFlags>(attributes: A, o: O) =>
    ({ ...o, kind: 'nested', nesting: 'list', attributes }) as O & NestedAttribute<'list', A>,
  /** A set of nested objects. */
  setNested: <const A extends Attributes, const O extends AttributeFlags>(attributes: A, o: O) =>
    ({ ...o, kind: 'nested', nesting: 'set', attributes }) as O & NestedAttribute<'set', A>,
  /** A map of nested objects. */
  mapNested: <const A extends Attributes, const O extends AttributeFlags>(attributes: A, o: O) =>
    ({ ...o, kind: 'nested', nesting: 'map', attributes }) as O & NestedAttribute<'map', A>,
};

type BlockOptions = Omit<BlockDefinition<'single', Attributes>, 'kind' | 'nesting' | 'attributes'>;

/** Nested block builders. */
export const block = {
  single: <const A extends Attributes>(attributes: A, o: BlockOptions): BlockDefinition<'single', A> => ({ ...o, kind: 'block', nesting: 'single', attributes }),
  list: <const A extends Attributes>(attributes: A, o: BlockOptions): BlockDefinition<'list', A> => ({ ...o, kind: 'block', nesting: 'list', attributes }),
  set: <const A extends Attributes>(attributes: A, o: BlockOptions): BlockDefinition<'set', A> => ({ ...o, kind: 'block', nesting: 'set', attributes }),
};

/** Declares a schema; `const` inference keeps `required: true` and `oneOf` literals in the model type. */
export function defineSchema<const A extends Attributes>(schema: {
  readonly version?: number;
  readonly description: string;
  readonly attributes: A;
}): Schema<A> {
  return { version: schema.version ?? 0, description: schema.description, attributes: schema.attributes };
}

// ---- derived cty types ----

/** The cty type of one attribute's value. */
export function attributeType(a: Attribute): CtyType {
  switch (a.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return cty[a.kind];
    case 'list':
    case 'set':
    case 'map':
      return cty[a.kind](a.element.cty);
    case 'nested':
    case 'block': {
      const object = objectType(a.attributes);
      return a.nesting === 'single' ? object : cty[a.nesting](object);
    }
  }
}

// Schemas are never changed once defined, and each RPC asks for the type of its resource's schema several times.
const objectTypes = new WeakMap<Attributes, CtyType>();

/** The cty object type of a set of attributes (the value type of a schema). */
export function objectType(attributes: Attributes): CtyType {
  let type = objectTypes.get(attributes);
  if (type === undefined) {
    type = cty.object(Object.fromEntries(Object.entries(attributes).map(([k, a]) => [k, attributeType(a)])));
    objectTypes.set(attributes, type);
  }
  return type;
}
