/**
 * The zod model of a schema: the same shape as {@link SchemaModel}, for code that must check a model at run time
 * (tests, tools, code outside the provider process). The provider's own hot path never loads zod: values from
 * terraform are already typed, and handler results are checked by `fromModel`.
 */
import { z } from 'zod';
import type { CtyType } from '../cty/types';
import type { Attribute, Attributes, Schema, SchemaModel } from './schema';

/** The zod schema of a schema's model. */
export function zodModel<S extends Schema>(schema: S): z.ZodType<SchemaModel<S>> {
  return zodObject(schema.attributes) as unknown as z.ZodType<SchemaModel<S>>;
}

function zodObject(attributes: Attributes): z.ZodType {
  return z.strictObject(Object.fromEntries(Object.entries(attributes).map(([name, a]) => [name, zodAttribute(a)])));
}

function zodAttribute(a: Attribute): z.ZodType {
  const value = zodValue(a).describe(a.description);
  const neverNull = ('required' in a && a.required) || (a.kind === 'block' && a.nesting !== 'single');
  return neverNull ? value : value.nullable();
}

function zodValue(a: Attribute): z.ZodType {
  switch (a.kind) {
    case 'string':
      return a.oneOf ? z.enum(a.oneOf as [string, ...string[]]) : z.string();
    case 'number': {
      let n = a.integer ? z.number().int() : z.number();
      if (a.min !== undefined) n = n.min(a.min);
      if (a.max !== undefined) n = n.max(a.max);
      return n;
    }
    case 'bool':
      return z.boolean();
    case 'list':
    case 'set':
      return z.array(zodElement(a.element.cty));
    case 'map':
      return z.record(z.string(), zodElement(a.element.cty));
    case 'nested':
    case 'block': {
      const object = zodObject(a.attributes);
      if (a.nesting === 'single') return object;
      return a.nesting === 'map' ? z.record(z.string(), object) : z.array(object);
    }
  }
}

function zodElement(type: CtyType): z.ZodType {
  switch (type.kind) {
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'bool':
      return z.boolean();
    case 'list':
    case 'set':
      return z.array(zodElement(type.element));
    case 'map':
      return z.record(z.string(), zodElement(type.element));
    case 'object':
      return z.strictObject(Object.fromEntries(Object.entries(type.attributes).map(([k, t]) => [k, zodElement(t).nullable()])));
    case 'tuple':
      return z.tuple(type.elements.map(zodElement) as [z.ZodType, ...z.ZodType[]]);
    case 'dynamic':
      return z.unknown();
  }
}
