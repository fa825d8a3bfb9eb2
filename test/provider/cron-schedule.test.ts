/**
 * A cron's schedule at plan: not five fields, or plain fields out of range, is an error naming the fix; a field in a
 * syntax the provider's parser does not read (which an agent server may accept) is a warning, never a refusal.
 */
import { scheduleProblem, scheduleWarning } from '../../lib/provider/resources/cron/messages';

test.each(['*/5 * * * *', '0 9 * * mon-fri', '0 0 1 jan *', '0 0 * * 7', '0 9 * * MON-FRI'])('%s is a schedule, without a warning', (schedule) => {
  expect(scheduleProblem(schedule)).toBeUndefined();
  expect(scheduleWarning(schedule)).toBeUndefined();
});

test.each([
  ['61 * * * *', 'invalid minute field "61": values go from 0 to 59'],
  ['0 24 * * *', 'invalid hour field "24"'],
  ['0 9 * *', 'a cron expression has 5 fields'],
  ['@daily', 'a cron expression has 5 fields'],
  ['0 0 0 * * *', 'a cron expression has 5 fields'],
])('%s is refused at plan', (schedule, message) => {
  expect(scheduleProblem(schedule)).toContain(message);
  expect(scheduleProblem(schedule)).toContain('Write five fields');
  expect(scheduleWarning(schedule)).toBeUndefined();
});

test.each(['0 0 L * *', '0 9 * * mon#2', '0 0 ? * *', '0 0 1W * *'])('%s is warned of, not refused', (schedule) => {
  expect(scheduleProblem(schedule)).toBeUndefined();
  expect(scheduleWarning(schedule)).toMatch(/^The provider does not read this schedule \(invalid .* field ".*"[^)]*\); the agent server may accept it/);
});
