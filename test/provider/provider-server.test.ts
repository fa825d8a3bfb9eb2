/**
 * The tfplugin6 RPCs in-process, with a typed resource: provider configuration, validation, plan, apply, read,
 * import, state upgrades, stop, and that every failure is a diagnostic rather than a gRPC error.
 */
import { decodeMsgpack, encodeMsgpack } from '../../lib/provider/cty/msgpack';
import { CtyNumber } from '../../lib/provider/cty/number';
import { UNKNOWN, type CtyValue } from '../../lib/provider/cty/value';
import { objectType } from '../../lib/provider/framework/schema';
import { createLogger } from '../../lib/provider/log';
import { decodeMessage, encodeMessage, type ProtoMessage } from '../../lib/provider/plugin/protobuf';
import { providerSchema } from '../../lib/provider/provider-config';
import { ProviderServer, grpcMethods } from '../../lib/provider/rpc/server';
import widget, { widgetFaults, widgetNames, widgets, widgetSchema } from './fixtures/widget-resource';

const widgetType = objectType(widgetSchema.attributes);
const providerType = objectType(providerSchema.attributes);
const dv = (value: CtyValue, type = widgetType) => ({ msgpack: encodeMsgpack(value, type) });
const value = (message: unknown, type = widgetType): CtyValue => decodeMsgpack((message as { msgpack: Uint8Array }).msgpack, type);
const diagnostics = (response: ProtoMessage) => response.diagnostics as { severity: number; summary: string; detail: string; attribute?: unknown }[];
const num = (v: number) => CtyNumber.fromNumber(v);
const emptyWidget = { id: null, name: null, color: null, size: null, password: null, password_version: null, revision: null, labels: null, timeouts: null };
const widgetConfig = (values: Record<string, CtyValue>) => ({ ...emptyWidget, ...values });
const providerConfig = (values: Record<string, CtyValue>) => ({
  api_key: null, tenant_id: null, control_plane_url: null, tracing_url: null, request_timeout: null, max_retries: null, ...values,
});

function newServer(env: NodeJS.ProcessEnv = {}): ProviderServer {
  return new ProviderServer({
    registry: { resources: { example_widget: () => widget }, dataSources: { example_widget_names: () => widgetNames } },
    log: createLogger(undefined),
    env,
  });
}

async function configured(values: Record<string, CtyValue> = { api_key: 'k', control_plane_url: 'http://127.0.0.1:9' }) {
  const server = newServer();
  const response = await server.call('ConfigureProvider', { terraform_version: '1.11.4', config: dv(providerConfig(values), providerType) });
  expect(diagnostics(response)).toEqual([]);
  return server;
}

async function createWidget(server: ProviderServer, config: Record<string, CtyValue>) {
  const cfg = widgetConfig(config);
  const planned = await server.call('PlanResourceChange', { type_name: 'example_widget', config: dv(cfg), proposed_new_state: dv(cfg) });
  return server.call('ApplyResourceChange', { type_name: 'example_widget', config: dv(cfg), planned_state: planned.planned_state });
}

beforeEach(() => {
  widgets.clear();
  Object.assign(widgetFaults, { failCreateAfterId: false, throwOnUpdate: false, returnWrongType: false });
});

describe('provider RPCs', () => {
  it('serves schemas and metadata, with the optional-schema capability', async () => {
    const server = newServer();
    const schema = await server.call('GetProviderSchema', {});
    expect(schema.server_capabilities).toEqual({ plan_destroy: false, get_provider_schema_optional: true, move_resource_state: false });
    expect(Object.keys(schema.resource_schemas as object)).toEqual(['example_widget']);
    expect(Object.keys(schema.data_source_schemas as object)).toEqual(['example_widget_names']);
    const metadata = await server.call('GetMetadata', {});
    expect(metadata.resources).toEqual([{ type_name: 'example_widget' }]);
  });

  it('reports a missing API key at configure time, against api_key, and takes it from the environment', async () => {
    const response = await newServer().call('ConfigureProvider', { config: dv(providerConfig({}), providerType) });
    expect(diagnostics(response)).toEqual([
      expect.objectContaining({ severity: 1, summary: 'Missing API key', attribute: { steps: [{ attribute_name: 'api_key' }] } }),
    ]);
    expect(diagnostics(response)[0]!.detail).toContain('AGENTPLATFORM_API_KEY');
    const fromEnv = await newServer({ AGENTPLATFORM_API_KEY: 'env-key' }).call('ConfigureProvider', { config: dv(providerConfig({}), providerType) });
    expect(diagnostics(fromEnv)).toEqual([]);
  });

  it('builds API settings from the provider block and environment', async () => {
    const server = newServer({ AGENTPLATFORM_CONTROL_PLANE_URL: 'http://127.0.0.1:7', AGENTPLATFORM_TENANT_ID: 'ws-env' });
    await server.call('ConfigureProvider', { terraform_version: '1.11.4', config: dv(providerConfig({ api_key: 'k', request_timeout: '2m', max_retries: num(5) }), providerType) });
    const options = server.context().transportOptions('control-plane');
    expect(options).toMatchObject({ baseUrl: 'http://127.0.0.1:7', timeoutMs: 120_000, retry: { maxRetries: 5 }, auth: { kind: 'api-key', apiKey: 'k', tenantId: 'ws-env' } });
    expect(options.userAgent).toMatch(/^terraform-provider-agentplatform\/\S+ terraform\/1\.11\.4$/);
    expect(server.context().controlPlane()).toBe(server.context().controlPlane());
    expect(() => server.context().transportOptions('tracing')).toThrow('Missing tracing API URL');
  });

  it('defers a missing key while the provider block is not known yet', async () => {
    const server = newServer();
    const response = await server.call('ConfigureProvider', { config: dv(providerConfig({ api_key: UNKNOWN }), providerType) });
    expect(diagnostics(response)).toEqual([]);
    expect(() => server.context().transportOptions('control-plane')).toThrow('Provider configuration not known yet');
  });

  it('validates provider, resource and data source configurations with attribute paths', async () => {
    const server = newServer();
    const provider = await server.call('ValidateProviderConfig', { config: dv(providerConfig({ max_retries: num(1.5) }), providerType) });
    expect(diagnostics(provider)).toEqual([expect.objectContaining({ summary: 'Invalid max_retries', attribute: { steps: [{ attribute_name: 'max_retries' }] } })]);
    const capabilities = { write_only_attributes_allowed: true };
    const resource = await server.call('ValidateResourceConfig', { type_name: 'example_widget', config: dv(widgetConfig({ name: 'w', color: 'green' })), client_capabilities: capabilities });
    expect(diagnostics(resource).map((d) => d.summary)).toEqual(['Invalid color']);
    const oldTerraform = await server.call('ValidateResourceConfig', { type_name: 'example_widget', config: dv(widgetConfig({ name: 'w', password: 'p' })) });
    expect(diagnostics(oldTerraform)).toEqual([
      expect.objectContaining({ summary: 'Write-only attribute needs terraform 1.11', attribute: { steps: [{ attribute_name: 'password' }] } }),
    ]);
    const unknownType = await server.call('ValidateDataResourceConfig', { type_name: 'example_nope', config: dv(null) });
    expect(diagnostics(unknownType)).toEqual([expect.objectContaining({ summary: 'Unknown data source type' })]);
  });

  it('plans, creates, reads, updates and deletes, keeping write-only values out of plan and state', async () => {
    const server = await configured();
    const cfg = widgetConfig({ name: 'w', size: num(1), password: 's3cret' });
    const plan = await server.call('PlanResourceChange', { type_name: 'example_widget', config: dv(cfg), proposed_new_state: dv(cfg), prior_private: Buffer.from('p') });
    expect(value(plan.planned_state)).toMatchObject({ id: UNKNOWN, color: 'red', password: null, revision: UNKNOWN });
    expect(plan.planned_private).toEqual(Buffer.from('p'));

    const applied = await server.call('ApplyResourceChange', { type_name: 'example_widget', config: dv(cfg), planned_state: plan.planned_state });
    const state = value(applied.new_state) as Record<string, CtyValue>;
    expect(diagnostics(applied)).toEqual([]);
    expect(state).toMatchObject({ id: 'w-1', color: 'red', password: null, revision: num(1) });
    expect(widgets.get('w-1')!.password).toBe('s3cret');

    const read = await server.call('ReadResource', { type_name: 'example_widget', current_state: applied.new_state });
    expect(value(read.new_state)).toEqual(state);

    const cfg2 = { ...cfg, size: num(2) };
    const plan2 = await server.call('PlanResourceChange', { type_name: 'example_widget', config: dv(cfg2), prior_state: applied.new_state, proposed_new_state: dv({ ...state, size: num(2) }) });
    expect(value(plan2.planned_state)).toMatchObject({ id: 'w-1', revision: UNKNOWN, size: num(2) });
    expect(plan2.requires_replace).toEqual([]);
    const updated = await server.call('ApplyResourceChange', { type_name: 'example_widget', config: dv(cfg2), prior_state: applied.new_state, planned_state: plan2.planned_state });
    expect(value(updated.new_state)).toMatchObject({ id: 'w-1', revision: num(2) });

    const rename = await server.call('PlanResourceChange', { type_name: 'example_widget', config: dv({ ...cfg2, name: 'x' }), prior_state: updated.new_state, proposed_new_state: dv({ ...(value(updated.new_state) as object), name: 'x' }) });
    expect(rename.requires_replace).toEqual([{ steps: [{ attribute_name: 'name' }] }]);

    const deleted = await server.call('ApplyResourceChange', { type_name: 'example_widget', prior_state: updated.new_state, planned_state: dv(null), config: dv(null) });
    expect(value(deleted.new_state)).toBeNull();
    expect(widgets.size).toBe(0);
    const gone = await server.call('ReadResource', { type_name: 'example_widget', current_state: updated.new_state });
    expect(value(gone.new_state)).toBeNull();
  });

  it('returns the new id with the error when create fails after the resource exists', async () => {
    const server = await configured();
    widgetFaults.failCreateAfterId = true;
    const applied = await createWidget(server, { name: 'w' });
    expect(diagnostics(applied)).toEqual([expect.objectContaining({ severity: 1, summary: 'Widget failed' })]);
    expect(value(applied.new_state)).toMatchObject({ id: 'w-1' });
  });

  it('turns handler exceptions into diagnostics, keeping the prior state on a failed update', async () => {
    const server = await configured();
    const created = await createWidget(server, { name: 'w' });
    widgetFaults.throwOnUpdate = true;
    const state = value(created.new_state) as Record<string, CtyValue>;
    const updated = await server.call('ApplyResourceChange', { type_name: 'example_widget', config: dv({ ...state, size: num(3) }), prior_state: created.new_state, planned_state: dv({ ...state, size: num(3) }) });
    expect(diagnostics(updated)).toEqual([expect.objectContaining({ summary: 'Failed to update example_widget', detail: 'widget API unavailable' })]);
    expect(value(updated.new_state)).toEqual(state);
  });

  it('reports a handler returning a wrongly typed model as a diagnostic naming the attribute', async () => {
    const server = await configured();
    widgetFaults.returnWrongType = true;
    const applied = await createWidget(server, { name: 'w' });
    expect(diagnostics(applied)).toEqual([expect.objectContaining({ summary: 'Failed to create example_widget', detail: 'size: expected number, got a string' })]);
  });

  it('imports by id, leaving the rest for read', async () => {
    const server = await configured();
    await createWidget(server, { name: 'w' });
    const imported = await server.call('ImportResourceState', { type_name: 'example_widget', id: 'w-1' });
    const resources = imported.imported_resources as { type_name: string; state: unknown }[];
    expect(resources[0]!.type_name).toBe('example_widget');
    expect(value(resources[0]!.state)).toEqual({ ...emptyWidget, id: 'w-1' });
    const missing = await server.call('ImportResourceState', { type_name: 'example_widget', id: 'w-9' });
    expect(diagnostics(missing)).toEqual([expect.objectContaining({ summary: 'Cannot import widget', detail: 'No widget w-9.' })]);
  });

  it('upgrades stored state through each version, keeping numbers exact', async () => {
    const server = newServer();
    const raw = Buffer.from('{"id":"w-1","name":"w","colour":"blue","size":0.1,"revision":12345678901234567890,"password":null}');
    const upgraded = await server.call('UpgradeResourceState', { type_name: 'example_widget', version: 0, raw_state: { json: raw } });
    expect(diagnostics(upgraded)).toEqual([]);
    expect(value(upgraded.upgraded_state)).toEqual({ ...emptyWidget, id: 'w-1', name: 'w', color: 'blue', size: CtyNumber.parse('0.1'), revision: CtyNumber.parse('12345678901234567890'), labels: [] });
    const newer = await server.call('UpgradeResourceState', { type_name: 'example_widget', version: 3, raw_state: { json: raw } });
    expect(diagnostics(newer)).toEqual([expect.objectContaining({ summary: 'State written by a newer provider' })]);
  });

  it('reads data sources', async () => {
    const server = await configured();
    await createWidget(server, { name: 'a', color: 'blue' });
    await createWidget(server, { name: 'b' });
    const type = objectType(widgetNames.schema.attributes);
    const read = await server.call('ReadDataSource', { type_name: 'example_widget_names', config: dv({ color: 'blue', names: null }, type) });
    expect(value(read.state, type)).toEqual({ color: 'blue', names: ['a'] });
  });

  it('cancels waits in flight on StopProvider, and a new configuration starts afresh', async () => {
    const server = await configured();
    const signal = server.context().signal;
    expect(await server.call('StopProvider', {})).toEqual({ Error: '' });
    expect(signal.aborted).toBe(true);
    await server.call('ConfigureProvider', { config: dv(providerConfig({ api_key: 'k' }), providerType) });
    expect(server.context().signal.aborted).toBe(false);
  });

  it('answers the RPCs it does not offer with diagnostics', async () => {
    const server = newServer();
    expect(diagnostics(await server.call('MoveResourceState', {}))).toEqual([expect.objectContaining({ severity: 1 })]);
    expect(diagnostics(await server.call('OpenEphemeralResource', { type_name: 'x' }))).toHaveLength(1);
    expect(await server.call('GetFunctions', {})).toEqual({ functions: {}, diagnostics: [] });
  });

  it('serves the methods over their gRPC paths, protobuf in and out', async () => {
    const resolve = grpcMethods(newServer(), () => undefined);
    const method = resolve('/tfplugin6.Provider/GetMetadata');
    expect(method?.kind).toBe('unary');
    const bytes = await (method as { call(b: Buffer): Promise<Buffer> }).call(encodeMessage('tfplugin6.GetMetadata.Request', {}));
    expect(decodeMessage('tfplugin6.GetMetadata.Response', bytes)).toMatchObject({ resources: [{ type_name: 'example_widget' }] });
    expect(resolve('/plugin.GRPCStdio/StreamStdio')).toEqual({ kind: 'idle-stream' });
    expect(resolve('/plugin.GRPCController/Shutdown')).toMatchObject({ kind: 'unary' });
    expect(resolve('/tfplugin6.Provider/Nope')).toBeUndefined();
  });
});
