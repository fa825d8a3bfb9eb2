/**
 * One schema definition, four derivations: the tfplugin6 Schema message, the TypeScript model, the zod model and
 * the documentation table; plus the checks of definitions and of configurations.
 */
import { NetworkError, TimeoutError, errorFromResponse } from '../../lib/api/errors';
import { MAX_RETRY_AFTER_MS, isRetryable, type HttpMethod } from '../../lib/api/retry';
import { CtyNumber } from '../../lib/provider/cty/number';
import { cty } from '../../lib/provider/cty/types';
import { UNKNOWN } from '../../lib/provider/cty/value';
import { Diagnostics, formatPath } from '../../lib/provider/framework/diagnostics';
import { attributeTables, renderDocPage } from '../../lib/provider/framework/docs';
import { attr, block, defineSchema, element, objectType, type SchemaModel } from '../../lib/provider/framework/schema';
import { schemaProblems, schemaToProto } from '../../lib/provider/framework/schema-proto';
import { timeoutsAttribute } from '../../lib/provider/framework/timeouts';
import { reportNullElements, validateAttributes } from '../../lib/provider/framework/validate';
import { zodModel } from '../../lib/provider/framework/zod-model';
import { providerSchema } from '../../lib/provider/provider-config';
import { PROVIDER_BEHAVIOUR } from '../../lib/provider/provider-docs';
import { registry } from '../../lib/provider/registry';

const sample = defineSchema({
  version: 2,
  description: 'A **sample** resource.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'Id.' }),
    name: attr.string({ required: true, requiresReplace: true, description: 'Name | unique.' }),
    source: attr.string({ required: true, oneOf: ['github', 'external_docker'], description: 'Source.' }),
    deployment_type: attr.string({ optional: true, computed: true, default: 'prod', oneOf: ['dev', 'prod'], description: 'Type.' }),
    secrets: attr.map(element.string, { optional: true, writeOnly: true, description: 'Secrets.' }),
    ports: attr.list(element.number, { optional: true, maxItems: 2, validateElement: (p: number) => (p > 65535 ? 'not a port' : undefined), description: 'Ports.' }),
    resource_spec: attr.object(
      { min_scale: attr.number({ optional: true, integer: true, min: 0, description: 'Min.' }), cpu: attr.number({ optional: true, description: 'CPU.' }) },
      { optional: true, description: 'Resources.' },
    ),
    rules: attr.listNested({ host: attr.string({ required: true, description: 'Host.' }) }, { optional: true, description: 'Rules.' }),
    mount: block.list({ path: attr.string({ required: true, description: 'Path.' }) }, { description: 'Mounts.', maxItems: 3 }),
    timeouts: timeoutsAttribute({ create: '30m', delete: '15m' }),
  },
});

describe('schema derivation', () => {
  it('derives the tfplugin6 Schema message', () => {
    const proto = schemaToProto(sample) as { version: number; block: { attributes: Record<string, unknown>[]; block_types: Record<string, unknown>[] } };
    expect(proto.version).toBe(2);
    const byName = Object.fromEntries(proto.block.attributes.map((a) => [a.name, a]));
    expect(byName.name).toMatchObject({ required: true, optional: false, computed: false, description_kind: 1 });
    expect(JSON.parse(String(byName.name!.type))).toBe('string');
    expect(byName.secrets).toMatchObject({ optional: true, write_only: true });
    expect(JSON.parse(String(byName.secrets!.type))).toEqual(['map', 'string']);
    expect(byName.deployment_type).toMatchObject({ optional: true, computed: true });
    expect(byName.resource_spec).toMatchObject({ nested_type: { nesting: 1 } });
    expect(byName.resource_spec!.type).toBeUndefined();
    expect(byName.rules).toMatchObject({ nested_type: { nesting: 2, attributes: [{ name: 'host', required: true }] } });
    expect(byName.timeouts).toMatchObject({ optional: true, nested_type: { nesting: 1 } });
    expect(proto.block.block_types).toEqual([
      expect.objectContaining({ type_name: 'mount', nesting: 2, max_items: 3, block: expect.objectContaining({ description: 'Mounts.' }) }),
    ]);
  });

  it('derives the value type', () => {
    expect(objectType(sample.attributes)).toMatchObject({
      kind: 'object',
      attributes: {
        ports: cty.list(cty.number),
        resource_spec: cty.object({ min_scale: cty.number, cpu: cty.number }),
        mount: cty.list(cty.object({ path: cty.string })),
        timeouts: cty.object({ create: cty.string, delete: cty.string }),
      },
    });
  });

  it('derives a zod model with the TypeScript model type', () => {
    const model: SchemaModel<typeof sample> = {
      id: null,
      name: 'n',
      source: 'github',
      deployment_type: 'prod',
      secrets: { A: 'b' },
      ports: [80],
      resource_spec: { min_scale: 1, cpu: null },
      rules: [{ host: 'h' }],
      mount: [],
      timeouts: { create: '1h', delete: null },
    };
    const zod = zodModel(sample);
    expect(zod.parse(model)).toEqual(model);
    expect(zod.safeParse({ ...model, source: 'svn' }).success).toBe(false);
    expect(zod.safeParse({ ...model, name: null }).success).toBe(false);
    expect(zod.safeParse({ ...model, resource_spec: { min_scale: 1.5, cpu: null } }).success).toBe(false);
    expect(zod.safeParse({ ...model, extra: 1 }).success).toBe(false);
  });

  it('derives documentation tables, nested objects in their own sections', () => {
    const tables = attributeTables(sample.attributes);
    expect(tables).toContain('| `name` | String | required | Name \\| unique. Changing it replaces the resource. |');
    expect(tables).toContain('| `deployment_type` | String | optional, computed | Type. One of: `dev`, `prod`. Default: `"prod"`. |');
    expect(tables).toContain('Write-only: sent to the API, never stored in plan or state');
    expect(tables).toContain('| `resource_spec` | Object ([see below](#nested-schema-for-resource_spec)) | optional |');
    expect(tables).toContain('### Nested schema for `resource_spec`');
    expect(tables).toContain('| `min_scale` | Number | optional | Min. At least 0. |');
    expect(tables).toContain('| `create` | String | optional | How long create may take');
    const page = renderDocPage({ kind: 'resource', typeName: 'agentplatform_sample', schema: sample, examples: ['resource "agentplatform_sample" "x" {}'], importSection: 'By id.' });
    expect(page).toMatch(/^---\npage_title: "agentplatform_sample Resource - agentplatform"/);
    expect(page).toContain('# agentplatform_sample (Resource)');
    expect(page).toContain('```terraform\nresource "agentplatform_sample" "x" {}\n```');
    expect(page).toContain('## Import\n\nBy id.');
  });
});

describe('schema definitions', () => {
  it('accepts well-formed schemas, including the provider block and every registered type', () => {
    expect(schemaProblems(sample, 'resource')).toEqual([]);
    expect(schemaProblems(providerSchema, 'provider')).toEqual([]);
    for (const [typeName, load] of Object.entries(registry.resources)) {
      expect({ typeName, problems: schemaProblems(load().schema, 'resource') }).toEqual({ typeName, problems: [] });
    }
    for (const [typeName, load] of Object.entries(registry.dataSources)) {
      expect({ typeName, problems: schemaProblems(load().schema, 'data source') }).toEqual({ typeName, problems: [] });
    }
  });

  it('lists the combinations terraform rejects', () => {
    const bad = defineSchema({
      description: 'Bad.',
      attributes: {
        both: attr.string({ required: true, computed: true, description: 'x' }),
        none: attr.string({ description: 'x' }),
        secret: attr.string({ optional: true, writeOnly: true, computed: true, description: 'x' }),
        defaulted: attr.string({ optional: true, default: 'x', description: 'x' }),
        Caps: attr.bool({ optional: true, description: '' }),
      },
    });
    expect(schemaProblems(bad, 'data source')).toEqual([
      'both: required excludes optional and computed',
      'none: set one of required, optional, computed',
      'secret: write-only attributes exist only in resources',
      'secret: write-only cannot be computed or force replacement',
      'defaulted: a default needs optional and computed',
      'Caps: names are lower_snake_case',
      'Caps: missing description',
    ]);
  });
});

describe('configuration checks', () => {
  const check = (config: Record<string, unknown>): Record<string, string> => {
    const diagnostics = new Diagnostics();
    validateAttributes(sample.attributes, config as never, diagnostics);
    return Object.fromEntries(diagnostics.items.map((d) => [formatPath(d.path ?? []), d.detail ?? '']));
  };
  const n = (v: number): CtyNumber => CtyNumber.fromNumber(v);

  it('reports each failed check against its attribute path', () => {
    expect(
      check({
        source: 'svn',
        ports: [n(80), n(70000), n(1)],
        resource_spec: { min_scale: n(-1.5), cpu: null },
        timeouts: { create: '10 minutes', delete: '0s' },
        secrets: null,
      }),
    ).toEqual({
      source: 'must be one of "github", "external_docker"; got "svn".',
      ports: 'allows at most 2 element(s).',
      'ports[1]': 'not a port',
      'resource_spec.min_scale': 'must be a whole number; got -1.5.',
      'timeouts.create': '"10 minutes" is not a duration: write a number with a unit, e.g. "45s", "30m" or "1h30m"',
      'timeouts.delete': '"0s" leaves no time at all: give a duration above zero, e.g. "45s", "30m" or "1h30m"',
    });
  });

  it('skips unknown and null values', () => {
    expect(check({ source: UNKNOWN, ports: [UNKNOWN], resource_spec: UNKNOWN, timeouts: null })).toEqual({});
  });

  it('reports a null element of a list or map, and a null required attribute of a nested object, at its place (a variable left unset) when planned, naming no secret value', () => {
    const config = { source: 'github', ports: [n(80), null], secrets: { OPENAI_API_KEY: null, OTHER: 'sk-not-shown' }, rules: [{ host: null }] };
    // not at validation, which terraform runs before a destroy too
    expect(check(config)).toEqual({});
    const diagnostics = new Diagnostics();
    reportNullElements(sample.attributes, config as never, diagnostics);
    expect(Object.fromEntries(diagnostics.items.map((d) => [formatPath(d.path ?? []), d.detail ?? '']))).toEqual({
      'ports[1]': 'is null: give it a value or leave it out (is its variable set?).',
      'rules[0].host': 'is required, and its value is null: give it a value (is its variable set?).',
      'secrets["OPENAI_API_KEY"]': 'is null: give it a value or leave it out (is its variable set?).',
    });
  });
});

describe('the documentation of max_retries', () => {
  const text = PROVIDER_BEHAVIOUR.replace(/\s+/g, ' ');
  const init = { method: 'POST', url: 'http://127.0.0.1/v2/deployments' };
  const failures = {
    408: errorFromResponse({ ...init, status: 408 }),
    429: errorFromResponse({ ...init, status: 429 }),
    500: errorFromResponse({ ...init, status: 500 }),
    502: errorFromResponse({ ...init, status: 502 }),
    503: errorFromResponse({ ...init, status: 503 }),
    504: errorFromResponse({ ...init, status: 504 }),
    'connection refused': new NetworkError('connect ECONNREFUSED', { ...init, code: 'ECONNREFUSED' }),
    'connection reset': new NetworkError('socket hang up', { ...init, code: 'ECONNRESET' }),
    timeout: new TimeoutError({ ...init, timeoutMs: 30_000 }),
  };
  const retried = (method: HttpMethod): string[] => Object.entries(failures).filter(([, err]) => isRetryable(err, method, undefined)).map(([failure]) => failure);

  it('says what the transport retries for each method', () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) expect({ method, retried: retried(method) }).toEqual({ method, retried: Object.keys(failures) });
    expect(text).toContain('GET, PUT and DELETE are retried on connection errors, timeouts (`request_timeout`), 408, 429 and 5xx.');
    for (const method of ['POST', 'PATCH'] as const) expect({ method, retried: retried(method) }).toEqual({ method, retried: ['429', '503', 'connection refused'] });
    expect(text).toContain('POST and PATCH (creates, updates, cancels) are not idempotent, so they are retried only when the server cannot have acted on them: 429, 503, and connection errors raised before the request was sent');
    expect(text).toContain(`(at most ${MAX_RETRY_AFTER_MS / 1000} s)`);
  });
});

describe('the provider block URLs', () => {
  const problemOf = (url: string): string => {
    const diagnostics = new Diagnostics();
    validateAttributes(providerSchema.attributes, { control_plane_url: url } as never, diagnostics);
    return diagnostics.items.map((d) => d.detail ?? '').join('\n');
  };

  it('judges the form of a URL that carries a user name or password, and never quotes them', () => {
    expect(problemOf('https://user:TOKEN_P@api.example.com/v1')).toBe('');
    const message = problemOf('https://user:TOKEN_P@api.example.com/a b');
    expect(message).toContain('"https://***@api.example.com/a b" is not an http:// or https:// URL written in full');
    expect(message).not.toContain('TOKEN_P');
  });
});
