/**
 * `DynamicValue` messages to and from cty values, and the conversions every resource RPC shares.
 */
import { fromStateJson, parseExactJson } from '../cty/json';
import { decodeMsgpack, encodeMsgpack } from '../cty/msgpack';
import type { CtyType } from '../cty/types';
import { unknownsToNull, type CtyValue } from '../cty/value';
import { keepEquivalent } from '../framework/answers';
import { fromModel, reconcileNumbers } from '../framework/model';
import { nullWriteOnly } from '../framework/plan';
import { objectType, type Schema } from '../framework/schema';
import type { ProtoMessage } from '../plugin/protobuf';

/** The tfplugin6 `DynamicValue` message. */
export interface DynamicValueMessage {
  /** The value, msgpack-encoded (what terraform sends and expects). */
  readonly msgpack?: Uint8Array;
  /** The value, JSON-encoded. */
  readonly json?: Uint8Array;
}

/** Decodes a `DynamicValue` (absent means null). */
export function decodeDynamic(message: unknown, type: CtyType): CtyValue {
  const dv = message as DynamicValueMessage | undefined;
  if (dv?.msgpack && dv.msgpack.length) return decodeMsgpack(dv.msgpack, type);
  if (dv?.json && dv.json.length) return fromStateJson(parseExactJson(Buffer.from(dv.json).toString('utf8')), type);
  return null;
}

/** Encodes a value as a msgpack `DynamicValue`. */
export function encodeDynamic(value: CtyValue, type: CtyType): ProtoMessage {
  return { msgpack: encodeMsgpack(value, type) };
}

/**
 * A handler's returned model as state terraform accepts: typed against the schema, values that mean the same as
 * `reference`'s (the plan or the prior state) kept as `reference` has them (numbers, and what `keepEquivalent`
 * knows), write-only attributes nulled and nothing left unknown.
 */
export function modelToState(schema: Schema, model: unknown, reference: CtyValue): CtyValue {
  const type = objectType(schema.attributes);
  const value = reconcileNumbers(keepEquivalent(schema.attributes, fromModel(model, type), reference), reference, type);
  return unknownsToNull(nullWriteOnly(schema.attributes, value));
}

/** A partial model completed with nulls (empty lists for list and set blocks) for every attribute it leaves out. */
export function completeModel(schema: Schema, partial: Record<string, unknown>): Record<string, unknown> {
  const empty = Object.entries(schema.attributes).map(([k, a]) => [k, a.kind === 'block' && a.nesting !== 'single' ? [] : null]);
  return { ...Object.fromEntries(empty), ...partial };
}
