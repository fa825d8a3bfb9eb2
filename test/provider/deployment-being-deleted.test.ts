/**
 * A deployment being deleted (AWAITING_DELETE), through the real terraform: the platform refuses every change to it,
 * so a plan takes it as gone (with a warning) and apply creates it again once the platform has removed it, waiting
 * while the old one still holds the name; import refuses it. The deletion ends when the test moves the platform's
 * clock, so nothing depends on how fast the machine runs terraform.
 */
import { NotFoundError } from '../../lib/api/errors';
import { ManualClock } from '../../lib/local/clock';
import { FAST_TIMINGS, TestPlatform, githubDeployment, until } from './support/deployment-platform';
import { diagnostic, flat } from './support/export-platform';
import { collect } from './support/terraform';

/** A deletion takes an hour of the platform's clock, which moves on its own only a few times faster than real time. */
const DELETE_DELAY_MS = 3_600_000;

let lp: TestPlatform;
let clock: ManualClock;
let ticker: NodeJS.Timeout;
beforeAll(async () => {
  clock = new ManualClock(Date.parse('2025-06-01T00:00:00Z'));
  // the pipeline's steps (20 ms) go on by themselves; a deletion ends when the test moves the clock by an hour
  ticker = setInterval(() => clock.advance(50), 10);
  lp = await TestPlatform.start({ ...FAST_TIMINGS, deleteDelayMs: DELETE_DELAY_MS }, clock);
});
afterAll(async () => {
  clearInterval(ticker);
  await lp.close();
});

test('is planned as gone with a warning, created again once removed, and not imported', async () => {
  const dir = lp.terraform();
  const name = lp.uniqueName('deleted-outside');
  dir.configure(githubDeployment('agent', { name }));
  expect((await dir.init()).code).toBe(0);
  expect((await dir.apply()).code).toBe(0);
  const first = dir.instance('agentplatform_deployment.agent').attributes.id as string;

  // deleted outside Terraform: the platform removes it only once the test moves its clock by an hour
  await lp.client.deleteDeployment(first);
  const planned = await dir.plan();
  expect(planned.code).toBe(2);
  expect(flat(diagnostic(planned.stdout + planned.stderr, `Deployment "${name}" is being deleted`))).toContain(
    `Deployment ${first} is AWAITING_DELETE`,
  );
  expect(planned.stdout).toMatch(/agentplatform_deployment\.agent will be created/);

  const fresh = lp.terraform();
  fresh.configure(githubDeployment('agent', { name }));
  expect((await fresh.init()).code).toBe(0);
  const imported = await fresh.tf.run(['import', '-no-color', 'agentplatform_deployment.agent', first]);
  expect(imported.code).toBe(1);
  expect(flat(imported.stderr)).toContain(`Deployment ${first} is being deleted (AWAITING_DELETE)`);

  // apply waits until the old deployment is gone (its name is held until then), then creates it again
  const from = lp.requests.length;
  const child = dir.tf.start(['apply', '-auto-approve', '-input=false', '-no-color']);
  const done = collect(child);
  const refused = () => lp.requests.slice(from).some((line) => /^POST \/v2\/deployments 409/.test(line));
  expect(await until(async () => refused(), 60_000)).toBe(true);
  await lp.client.getDeployment(first);
  clock.advance(DELETE_DELAY_MS);
  const applied = await done;
  // the error, if any, is shown in full
  expect({ code: applied.code, stderr: applied.code === 0 ? '' : applied.stderr }).toEqual({ code: 0, stderr: '' });
  const second = dir.instance('agentplatform_deployment.agent').attributes.id as string;
  expect(second).not.toBe(first);
  // the first create met the name still taken; the second came after the old deployment was gone
  const creates = lp.requests.slice(from).filter((line) => /POST \/v2\/deployments\b/.test(line));
  expect(creates).toEqual([expect.stringContaining('409'), expect.stringContaining('201')]);
  await expect(lp.client.getDeployment(first)).rejects.toBeInstanceOf(NotFoundError);
  expect((await lp.client.getDeployment(second)).name).toBe(name);
  expect((await dir.plan()).code).toBe(0);
});
