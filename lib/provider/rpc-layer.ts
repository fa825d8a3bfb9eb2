/**
 * Everything the provider needs past the handshake: the tfplugin6 server and what it serves. It is loaded after the
 * handshake, so that the handshake waits only for the process, the certificate and the listening socket.
 */
export { ProviderServer, grpcMethods } from './rpc/server';
export { registry } from './registry';
