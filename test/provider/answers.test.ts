/**
 * Reading answers into state (lib/provider/framework/answers.ts): a field an answer leaves out keeps the planned or
 * prior value, and a value the platform writes otherwise keeps the configured or prior form, in state and in plans.
 */
import { sameUrl } from '../../lib/api/urls';
import { UNKNOWN } from '../../lib/provider/cty/value';
import { given, keepEquivalent } from '../../lib/provider/framework/answers';
import { defaultPlan } from '../../lib/provider/framework/plan';
import { attr, defineSchema, element } from '../../lib/provider/framework/schema';
import { modelToState } from '../../lib/provider/rpc/dynamic';

const schema = defineSchema({
  description: 'A resource whose platform normalises what it stores.',
  attributes: {
    url: attr.string({ optional: true, requiresReplace: true, sameValue: sameUrl, description: 'URL.' }),
    label: attr.string({ optional: true, description: 'Label, compared as written.' }),
    fields: attr.list(element.string, { optional: true, requiresReplace: true, unordered: true, description: 'Fields, in any order.' }),
    steps: attr.list(element.string, { optional: true, description: 'Steps, in order.' }),
    spec: attr.object({ endpoint: attr.string({ optional: true, sameValue: sameUrl, description: 'Endpoint.' }) }, { optional: true, description: 'Spec.' }),
  },
});

const planned = { url: 'https://git.example.com/acme/agent', label: 'a', fields: ['id', 'name'], steps: ['x', 'y'], spec: { endpoint: 'http://s3.example.com' } };

test('a value the platform wrote otherwise keeps the planned form; a different one is taken as answered', () => {
  const answered = { url: 'https://GIT.example.com/acme/agent/', label: 'a ', fields: ['name', 'id'], steps: ['y', 'x'], spec: { endpoint: 'http://s3.example.com:80/' } };
  expect(keepEquivalent(schema.attributes, answered, planned)).toEqual({ ...planned, label: 'a ', steps: ['y', 'x'] });
  const changed = { ...answered, url: 'https://git.example.com/acme/other', fields: ['name', 'id', 'tags'] };
  expect(keepEquivalent(schema.attributes, changed, planned)).toMatchObject({ url: changed.url, fields: changed.fields });
});

test('a reference that is unknown or null takes the answer', () => {
  const answered = { ...planned, url: `${planned.url}/` };
  expect(keepEquivalent(schema.attributes, answered, { ...planned, url: UNKNOWN })).toMatchObject({ url: answered.url });
  expect(keepEquivalent(schema.attributes, answered, null)).toBe(answered);
});

test('the state a handler returns is reconciled with the plan before terraform compares them', () => {
  const state = modelToState(schema, { ...planned, url: `${planned.url}/`, fields: ['name', 'id'] }, planned);
  expect(state).toMatchObject({ url: planned.url, fields: planned.fields });
});

test('the same elements in another order, or the same URL written otherwise, do not force replacement', () => {
  const prior = { ...planned, fields: ['name', 'id'], url: `${planned.url}/` };
  expect(defaultPlan(schema.attributes, prior, planned, planned).requiresReplace).toEqual([]);
  const other = { ...planned, fields: ['name'] };
  expect(defaultPlan(schema.attributes, prior, other, other).requiresReplace).toEqual([[{ attribute: 'fields' }]]);
});

test('given keeps the planned value only when the answer leaves the field out', () => {
  expect([given(undefined, 'planned'), given(null, 'planned'), given('answered', 'planned')]).toEqual(['planned', null, 'answered']);
});

test.each([
  ['https://github.com/acme/agent', 'https://github.com/acme/agent/', true],
  ['HTTPS://GitHub.com/acme/agent', 'https://github.com/acme/agent', true],
  ['http://127.0.0.1:80', 'http://127.0.0.1/', true],
  ['https://github.com/acme/agent', 'https://github.com/acme/Agent', false],
  ['https://github.com/acme/agent?x=1', 'https://github.com/acme/agent?x=2', false],
  ['not a url', 'not a url/', false],
])('sameUrl(%j, %j) is %j', (a, b, same) => {
  expect(sameUrl(a, b)).toBe(same);
});
