/**
 * The default plan's conventions (terraform-plugin-framework's): unknown computed values on create, defaults,
 * write-only nulling, no-op plans, "use state for unknown", and which changes force replacement.
 */
import { CtyNumber } from '../../lib/provider/cty/number';
import { UNKNOWN, type CtyValue } from '../../lib/provider/cty/value';
import { formatPath } from '../../lib/provider/framework/diagnostics';
import { defaultPlan } from '../../lib/provider/framework/plan';
import { attr, defineSchema, element } from '../../lib/provider/framework/schema';

const schema = defineSchema({
  description: 'A deployment-like resource.',
  attributes: {
    id: attr.string({ computed: true, useStateForUnknown: true, description: 'Id.' }),
    name: attr.string({ required: true, requiresReplace: true, description: 'Name.' }),
    deployment_type: attr.string({ optional: true, computed: true, default: 'prod', requiresReplace: true, description: 'Type.' }),
    custom_url: attr.string({ optional: true, computed: true, requiresReplace: true, description: 'URL.' }),
    repo_ref: attr.string({ optional: true, description: 'Ref.' }),
    status: attr.string({ computed: true, description: 'Status.' }),
    secrets: attr.map(element.string, { optional: true, writeOnly: true, description: 'Secrets.' }),
    spec: attr.object(
      { region: attr.string({ optional: true, requiresReplace: true, description: 'Region.' }), label: attr.string({ computed: true, description: 'Label.' }) },
      { optional: true, description: 'Spec.' },
    ),
  },
});

const nullConfig = { id: null, name: null, deployment_type: null, custom_url: null, repo_ref: null, status: null, secrets: null, spec: null };
const config = (values: Record<string, CtyValue>): Record<string, CtyValue> => ({ ...nullConfig, ...values });
const prior = {
  id: 'dep-1',
  name: 'a',
  deployment_type: 'prod',
  custom_url: 'https://a.example',
  repo_ref: 'main',
  status: 'DEPLOYED',
  secrets: null,
  spec: { region: 'eu', label: 'L' },
};
/** Terraform's proposed new state: config values, and prior values where the config leaves a computed attribute null. */
const proposed = (cfg: Record<string, CtyValue>, before: Record<string, CtyValue> | null): Record<string, CtyValue> => {
  const out: Record<string, CtyValue> = { ...cfg };
  for (const k of ['id', 'deployment_type', 'custom_url', 'status']) if (cfg[k] === null && before) out[k] = before[k]!;
  if (cfg.spec && before?.spec) out.spec = { ...(cfg.spec as object), label: (before.spec as Record<string, CtyValue>).label! };
  return out;
};
const plan = (cfg: Record<string, CtyValue>, before: Record<string, CtyValue> | null) => {
  const result = defaultPlan(schema.attributes, before, proposed(cfg, before), cfg);
  return { planned: result.planned as Record<string, CtyValue>, replace: result.requiresReplace.map(formatPath) };
};

describe('default plan', () => {
  it('on create: computed values unknown, defaults filled in, write-only values null', () => {
    const { planned, replace } = plan(config({ name: 'a', secrets: { K: 'v' }, spec: { region: 'eu', label: null } }), null);
    expect(planned).toEqual({
      id: UNKNOWN,
      name: 'a',
      deployment_type: 'prod',
      custom_url: UNKNOWN,
      repo_ref: null,
      status: UNKNOWN,
      secrets: null,
      spec: { region: 'eu', label: UNKNOWN },
    });
    expect(replace).toEqual([]);
  });

  it('with no change: the prior state, even when write-only values are set', () => {
    const { planned, replace } = plan(config({ name: 'a', repo_ref: 'main', secrets: { K: 'new' }, spec: { region: 'eu', label: null } }), prior);
    expect(planned).toBe(prior);
    expect(replace).toEqual([]);
  });

  it('on update: computed values unknown unless marked use-state-for-unknown', () => {
    const { planned, replace } = plan(config({ name: 'a', repo_ref: 'v2', spec: { region: 'eu', label: null } }), prior);
    expect(planned).toMatchObject({ id: 'dep-1', repo_ref: 'v2', status: UNKNOWN, deployment_type: 'prod', custom_url: UNKNOWN, spec: { region: 'eu', label: UNKNOWN } });
    // A computed attribute turning unknown is not a configuration change: it forces nothing.
    expect(replace).toEqual([]);
  });

  it('a use-state-for-unknown value that was null stays unknown: the update may set it', () => {
    const { planned } = plan(config({ name: 'a', repo_ref: 'v2', spec: { region: 'eu', label: null } }), { ...prior, id: null });
    expect(planned.id).toBe(UNKNOWN);
  });

  it('lists replace-forcing changes, nested ones by their full path', () => {
    const changed = plan(config({ name: 'b', deployment_type: 'dev', spec: { region: 'us', label: null } }), prior);
    expect(changed.replace).toEqual(['name', 'deployment_type', 'spec.region']);
    const unknownName = plan(config({ name: UNKNOWN, spec: { region: 'eu', label: null } }), prior);
    expect(unknownName.replace).toEqual(['name']);
  });

  it('keeps exact numbers from the configuration', () => {
    const numbers = defineSchema({ description: 'n', attributes: { size: attr.number({ optional: true, description: 's' }) } });
    const size = CtyNumber.parse('0.1');
    expect(defaultPlan(numbers.attributes, null, { size }, { size }).planned).toEqual({ size });
  });

  it('plans nothing for a destroy', () => {
    expect(defaultPlan(schema.attributes, prior, null, null)).toEqual({ planned: null, requiresReplace: [] });
  });
});
