/**
 * An HTTP reverse proxy between the provider and the local platform that reshapes every JSON answer the way another
 * platform version may write it, while keeping its meaning: every object gains fields the provider does not know;
 * statuses and kinds the provider does not know take the place of known ones where that changes nothing the provider
 * acts on (an intermediate revision or export status, a deployment that is not being deleted); optional fields are
 * left out; URLs gain a trailing slash, numbers become decimal strings, instants another notation, and some lists come
 * in reverse order. Requests are forwarded unchanged. `reshaped` counts what each rule changed, so that a test can
 * show the answers it read were reshaped.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Unknown values that replace known ones in answers. */
export const UNKNOWN_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  /** Revision statuses on the way to DEPLOYED. */
  revision: { QUEUED: 'QUEUED_FOR_CAPACITY', BUILDING: 'BUILDING_IMAGE', DEPLOYING: 'ROLLING_OUT' },
  /** Deployment statuses of a deployment that is not being deleted. */
  deployment: { AWAITING_DATABASE: 'AWAITING_DATABASE_MIGRATION', READY: 'SERVING_V2' },
  /** Export statuses before the final one. */
  export: { Created: 'Queued', Running: 'Exporting' },
  /** Kinds of deployment the real platform has besides dev and prod. */
  deploymentType: { prod: 'dev_free' },
  /** Destination types. */
  destinationType: { s3: 's3_compatible' },
};

/** Fields left out of answers: none is one the spec requires or the provider needs in order to work. */
const DROPPED = new Set(['tenant_id', 'updated_at', 'active_revision_id', 'secrets', 'credentials_keys', 'finished_at', 'source_bulk_export_id']);

/** Fields whose value is a URL. */
const URLS = new Set(['repo_url', 'custom_url', 'url', 'endpoint_url']);

/** Lists whose order carries no meaning to the platform. */
const REVERSED = new Set(['export_fields', 'credentials_keys', 'secrets']);

/** Numbers written as decimal strings (every other number keeps its JSON form: list offsets, for one). */
const NUMBERS_AS_STRINGS = new Set(['min_scale', 'max_scale', 'cpu', 'memory_mb', 'interval_hours', 'retry_number', 'rows_written']);

/** Maps (names to values), where a new key would be a new entry, not an unknown field. */
const MAPS = new Set(['errors', 'inject_headers']);

/** Instants of an export's range, written with microseconds and an offset instead of `Z`. */
const INSTANTS = new Set(['start_time', 'end_time']);

/** The fields every answered object gains. */
const EXTRA = { reshaped_extension: { added_by: 'reshaping proxy', items: [1, 'two'] }, reshaped_flag: true };

/** What each rule changed, by rule. */
export type ReshapeCounts = Record<'extra' | 'unknown' | 'dropped' | 'url' | 'number' | 'reversed' | 'instant', number>;

export interface ReshapingProxy {
  /** The proxy's base URL, to give the provider instead of the platform's. */
  readonly url: string;
  /** What the rules changed so far, and the unknown values answered, as `field=value`. */
  readonly reshaped: ReshapeCounts & { readonly values: Set<string> };
  close(): Promise<void>;
}

/** The key of {@link UNKNOWN_VALUES} that applies to `field` of an object, from the object's other fields. */
function enumOf(field: string, object: Record<string, unknown>): string | undefined {
  if (field === 'deployment_type') return 'deploymentType';
  if (field === 'destination_type') return 'destinationType';
  if (field !== 'status') return undefined;
  if ('latest_revision_id' in object) return 'deployment';
  if ('source_revision_config' in object) return 'revision';
  if ('bulk_export_destination_id' in object || 'bulk_export_id' in object) return 'export';
  return undefined;
}

/** `value` reshaped as `field` of an answer; `counts` records each change. */
export function reshape(value: unknown, counts: ReshapingProxy['reshaped'], field = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => reshape(item, counts));
    if (REVERSED.has(field) && items.length > 1) {
      counts.reversed += 1;
      return items.reverse();
    }
    return items;
  }
  if (value === null || typeof value !== 'object') return value;
  if (MAPS.has(field)) return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // every field of a revision is one the spec requires
  const revision = 'source_revision_config' in object && !('latest_revision_id' in object);
  for (const [key, v] of Object.entries(object)) {
    if (DROPPED.has(key) && !revision) {
      counts.dropped += 1;
      continue;
    }
    out[key] = reshapeField(key, v, object, counts);
  }
  counts.extra += 1;
  return { ...out, ...EXTRA };
}

function reshapeField(key: string, v: unknown, object: Record<string, unknown>, counts: ReshapingProxy['reshaped']): unknown {
  const kind = enumOf(key, object);
  const unknown = kind && typeof v === 'string' ? UNKNOWN_VALUES[kind]![v] : undefined;
  if (unknown) {
    counts.unknown += 1;
    counts.values.add(`${key}=${unknown}`);
    return unknown;
  }
  if (URLS.has(key) && typeof v === 'string' && !v.endsWith('/')) {
    counts.url += 1;
    return `${v}/`;
  }
  if (typeof v === 'number' && NUMBERS_AS_STRINGS.has(key)) {
    counts.number += 1;
    return String(v);
  }
  if (INSTANTS.has(key) && typeof v === 'string' && 'bulk_export_destination_id' in object && /Z$/.test(v)) {
    counts.instant += 1;
    return new Date(Date.parse(v)).toISOString().replace(/Z$/, '000+00:00');
  }
  return reshape(v, counts, key);
}

/** Starts a proxy that forwards to `upstream` (a base URL) and reshapes its JSON answers. */
export async function startReshapingProxy(upstream: string): Promise<ReshapingProxy> {
  const target = new URL(upstream);
  const reshaped: ReshapingProxy['reshaped'] = { extra: 0, unknown: 0, dropped: 0, url: 0, number: 0, reversed: 0, instant: 0, values: new Set() };
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host };
    delete headers['accept-encoding'];
    const forward = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body = Buffer.concat(chunks);
        if (/application\/json/.test(String(answer.headers['content-type'] ?? '')) && body.length > 0) {
          body = Buffer.from(JSON.stringify(reshape(JSON.parse(body.toString('utf8')), reshaped)));
        }
        const out = { ...answer.headers, 'content-length': String(body.length) };
        delete out['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(body);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reshaped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
