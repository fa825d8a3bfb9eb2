/** The ids of the platform's APIs. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a UUID in its hyphenated form, in either case: the form of every id of the platform's APIs. */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
