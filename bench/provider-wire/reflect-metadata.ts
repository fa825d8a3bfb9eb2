/**
 * The part of the Reflect metadata API that tsyringe (under @peculiar/x509) calls. The library asks its user for a
 * polyfill such as `reflect-metadata`; this stand-in keeps the measured executable free of one more package.
 */
const store = new WeakMap<object, Map<unknown, unknown>>();

function own(target: object, create: boolean): Map<unknown, unknown> | undefined {
  let map = store.get(target);
  if (!map && create) store.set(target, (map = new Map()));
  return map;
}

const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect.getMetadata !== 'function') {
  reflect.defineMetadata = (key: unknown, value: unknown, target: object): void => void own(target, true)!.set(key, value);
  reflect.getOwnMetadata = (key: unknown, target: object): unknown => own(target, false)?.get(key);
  reflect.getMetadata = (key: unknown, target: object): unknown => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
      const map = own(t, false);
      if (map?.has(key)) return map.get(key);
    }
    return undefined;
  };
}
