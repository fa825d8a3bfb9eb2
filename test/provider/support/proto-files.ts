/**
 * Reads the checked-in .proto files with @grpc/proto-loader and flattens them into the compact field table the
 * provider's protobuf codec uses, so a test can prove the table in `proto/descriptor.ts` matches the protocol.
 */
import { loadSync } from '@grpc/proto-loader';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldSpec, MethodSpec } from '../../../lib/provider/proto/descriptor';

/** The .proto files of the protocol, relative to `lib/provider/proto`. */
export const PROTO_FILES = ['tfplugin6.proto', 'grpc_controller.proto', 'grpc_stdio.proto', 'grpc_broker.proto'];

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}
interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  nestedType: MessageDescriptor[];
  options?: { mapEntry?: boolean } | null;
}

const SCALARS: Record<string, string> = {
  TYPE_STRING: 'string',
  TYPE_BYTES: 'bytes',
  TYPE_BOOL: 'bool',
  TYPE_INT64: 'int64',
  TYPE_INT32: 'int32',
  TYPE_UINT32: 'uint32',
  TYPE_ENUM: 'enum',
};

const PROTO_DIR = join(__dirname, '../../../lib/provider/proto');
const RPC = /rpc (\w+)\((stream )?([\w.]+)\) returns \((stream )?([\w.]+)\)/g;

/** The protocol as the codec's tables spell it, read from the .proto files. */
export interface ProtocolTables {
  /** Every message as `{ 'pkg.Outer.Inner': FieldSpec[] }`, map entry messages folded into maps. */
  messages: Record<string, FieldSpec[]>;
  /** Every method by its gRPC path. */
  methods: Record<string, MethodSpec>;
}

/** Loads the .proto files and flattens them into {@link ProtocolTables}. */
export function tablesFromProtoFiles(): ProtocolTables {
  const definition = loadSync(PROTO_FILES, {
    includeDirs: [PROTO_DIR],
    keepCase: true,
  });
  const messages: Record<string, FieldSpec[]> = {};
  const methods: Record<string, MethodSpec> = {};
  const visit = (fullName: string, message: MessageDescriptor): void => {
    const entries = new Map(message.nestedType.filter((n) => n.options?.mapEntry).map((n) => [n.name, n]));
    messages[fullName] = message.field.map((f): FieldSpec => {
      const entry = f.type === 'TYPE_MESSAGE' ? entries.get(f.typeName.split('.').pop()!) : undefined;
      if (entry) return [f.name, f.number, typeOf(entry.field.find((e) => e.name === 'value')!), 'map'];
      return f.label === 'LABEL_REPEATED' ? [f.name, f.number, typeOf(f), 'repeated'] : [f.name, f.number, typeOf(f)];
    });
    for (const nested of message.nestedType) if (!nested.options?.mapEntry) visit(`${fullName}.${nested.name}`, nested);
  };
  for (const [name, value] of Object.entries(definition)) {
    const v = value as { format?: string; type?: MessageDescriptor };
    if (v.format === 'Protocol Buffer 3 DescriptorProto' && v.type) visit(name, v.type);
  }
  for (const [name, fields] of Object.entries(messages)) {
    messages[name] = fields.map((f): FieldSpec => {
      if (f[2] in messages || isScalar(f[2])) return f;
      const type = resolve(name, f[2]);
      return f[3] ? [f[0], f[1], type, f[3]] : [f[0], f[1], type];
    });
  }
  // proto-loader names a method's messages only by their short name: take the full names from the .proto text.
  for (const file of PROTO_FILES) {
    const text = readFileSync(join(PROTO_DIR, file), 'utf8');
    const pkg = /^package ([\w.]+);/m.exec(text)![1]!;
    const service = /^service (\w+)/m.exec(text)![1]!;
    for (const [, name, requestStream, request, responseStream, response] of text.matchAll(RPC)) {
      const stream = requestStream ? 'bidi' : responseStream ? 'server' : undefined;
      const spec = [resolve(pkg, request!), resolve(pkg, response!)] as const;
      methods[`/${pkg}.${service}/${name}`] = stream ? [...spec, stream] : spec;
    }
  }
  return { messages, methods };

  /** Protobuf scoping: a relative type name is looked up from the innermost enclosing scope outwards. */
  function resolve(scope: string, typeName: string): string {
    for (let s = scope; s; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
      if (`${s}.${typeName}` in messages) return `${s}.${typeName}`;
    }
    if (typeName in messages) return typeName;
    throw new Error(`unresolved type ${typeName} in ${scope}`);
  }
}

function isScalar(type: string): boolean {
  return Object.values(SCALARS).includes(type);
}

function typeOf(f: FieldDescriptor): string {
  return SCALARS[f.type] ?? f.typeName.replace(/^\./, '');
}
