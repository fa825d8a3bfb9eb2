/** The ids of the platform's APIs. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `text` is a UUID in its hyphenated form, in either case. The spec types a deployment id, a revision id and a
 * tracing project's `session_id` as uuids; a destination id and an export id are plain strings, never checked so.
 */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** Whether two ids are the same UUID: the platform reads ids in any case and keeps them in lower case. */
export function sameUuid(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
