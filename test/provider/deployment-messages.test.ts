/** How the platform's 422 on a deployment becomes diagnostics: one per problem, on its attribute, named in the text when nested. */
import { ValidationError } from '../../lib/api/errors';
import { Diagnostics, formatPath } from '../../lib/provider/framework';
import { apiFailure } from '../../lib/provider/resources/deployment/messages';

function refusal(items: { loc: (string | number)[]; msg: string; type: string }[]): ValidationError {
  return new ValidationError('Unprocessable Entity', { method: 'POST', url: 'http://127.0.0.1/v2/deployments', status: 422, body: { detail: items } });
}

test('a problem of an attribute inside resource_spec names it in the detail, since terraform can point at the block only', () => {
  const diagnostics = new Diagnostics();
  const last = apiFailure(
    diagnostics,
    refusal([
      { loc: ['body', 'name'], msg: 'String should have at most 63 characters', type: 'string_too_long' },
      { loc: ['body', 'source_config', 'resource_spec', 'max_scale'], msg: 'Input should be less than or equal to 9007199254740991', type: 'less_than_equal' },
    ]),
    'create deployment "agent"',
  );
  const [first] = diagnostics.items;
  expect([first!.detail, formatPath(first!.path!)]).toEqual(['String should have at most 63 characters', 'name']);
  expect(last.summary).toBe('The platform refused to create deployment "agent"');
  expect(last.detail).toBe('`resource_spec.max_scale`: Input should be less than or equal to 9007199254740991');
  expect(formatPath(last.path!)).toBe('resource_spec.max_scale');
});
