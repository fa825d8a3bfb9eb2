/** JSON columns and timestamps of the agent server tables. */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../clock';

/** Parses a JSON column. */
export function fromJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}

/**
 * Whether a JSON document holds every key of `wanted` with an equal value (objects whatever the order of their keys),
 * as the searches by metadata or values match; nothing wanted matches every document.
 */
export function holdsAll(document: Readonly<Record<string, unknown>> | null, wanted: Readonly<Record<string, unknown>> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => document !== null && Object.hasOwn(document, key) && isDeepStrictEqual(document[key], value));
}

/** ISO 8601 time of the clock. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** A name-based (version 5) UUID, so defaults derived from names keep the same id across restarts. */
export function uuidFromName(namespace: string, name: string): string {
  const hash = createHash('sha1').update(namespace).update('\0').update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True for text shaped as a UUID. */
export { isUuid } from '../../../api/ids';
