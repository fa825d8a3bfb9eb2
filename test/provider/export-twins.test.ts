/**
 * Two bulk exports of one configuration that ask for exactly the same export: their creates' `Idempotency-Key`s are
 * told apart only by the order they are sent in (docs/convergence.md, Limits), so the plan warns of them, once, and
 * not of exports that differ in an argument the platform receives.
 */
import { ExportTestPlatform, diagnostics, flat } from './support/export-platform';

const DESTINATION_ID = '0b7e4a6c-3f21-4d8e-9c55-2a1f6e9b3d70';
const SESSION_ID = '3f0e9b1c-6a2d-4c8e-b7f5-1d9a0c4e2b68';
const SUMMARY = 'Another bulk export asks for exactly the same export';

function schedule(label: string, extra = ''): string {
  return `resource "agentplatform_bulk_export" "${label}" {
  destination_id = "${DESTINATION_ID}"
  session_id     = "${SESSION_ID}"
  start_time     = "2031-01-01T00:00:00Z"
  interval_hours = 24
${extra}}
`;
}

let lp: ExportTestPlatform;
beforeAll(async () => {
  lp = await ExportTestPlatform.start();
});
afterAll(() => lp.close());

test('the plan warns once of two exports whose requests are the same, whatever only Terraform keeps', async () => {
  const dir = lp.terraform();
  dir.configure([schedule('first'), schedule('second', '  cancel_spawned_on_destroy = true\n')].join('\n'));
  expect((await dir.init()).code).toBe(0);
  const planned = await dir.plan();
  expect(planned.code).toBe(2);
  const warnings = diagnostics(planned.stdout + planned.stderr, SUMMARY);
  expect(warnings).toHaveLength(1);
  expect(flat(warnings[0])).toContain('Set one argument apart');
});

test('exports that differ in what the platform receives are not warned of', async () => {
  const dir = lp.terraform();
  dir.configure([schedule('first'), schedule('second', '  export_fields = ["id", "name"]\n')].join('\n'));
  expect((await dir.init()).code).toBe(0);
  const planned = await dir.plan();
  expect(planned.code).toBe(2);
  expect(diagnostics(planned.stdout + planned.stderr, SUMMARY)).toEqual([]);
});
