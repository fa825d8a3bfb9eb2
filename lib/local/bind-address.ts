/**
 * What an address the platform binds means for those who reach it: whether it is loopback only, and the host of a URL
 * that reaches the server as bound.
 */
import * as os from 'node:os';

type Interfaces = ReturnType<typeof os.networkInterfaces>;

/** Whether binding `host` serves this machine only: a loopback address (`127.0.0.0/8`, `::1`) or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}

/** Whether `host` is an address of every interface (what `0.0.0.0` and `::` bind). */
export const isWildcardHost = (host: string): boolean => ['0.0.0.0', '::', '[::]', ''].includes(host);

/**
 * The host part of a URL that reaches a server bound to `host`. A wildcard address is no address to connect to: the
 * machine's first external IPv4 address stands for it (what another machine, or a container's neighbour, connects
 * to), else its first external IPv6 one of global scope, else loopback (a machine without a network). An IPv6 address
 * goes in brackets.
 */
export function urlHostOf(host: string, interfaces: Interfaces = os.networkInterfaces()): string {
  if (!isWildcardHost(host)) return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const external = Object.values(interfaces).flatMap((addresses) => (addresses ?? []).filter((address) => !address.internal));
  const v4 = external.find((address) => address.family === 'IPv4');
  if (v4) return v4.address;
  // a link-local address needs the interface's name in the URL, which few clients take
  const v6 = external.find((address) => address.family === 'IPv6' && !/^fe[89ab]/i.test(address.address));
  if (v6) return `[${v6.address}]`;
  return host === '0.0.0.0' ? '127.0.0.1' : '[::1]';
}
