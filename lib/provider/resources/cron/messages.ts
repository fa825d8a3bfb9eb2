/** What the cron resource tells the user: the problems of a configuration, and the errors of its look-ups. */
import { DiagnosticError } from '../../framework';

const FIX = 'Write five fields, minute (0-59) hour (0-23) day-of-month (1-31) month (1-12) day-of-week (0-7), in UTC: for example "0 9 * * mon-fri".';

/** The cron expression check, loaded only when a schedule is checked: plans that have no cron never load it. */
const check = (schedule: string) => (require('../../../api/cron-expression') as typeof import('../../../api/cron-expression')).checkSchedule(schedule);

/**
 * The error of a schedule that is no five-field cron expression (a cron's schedule is a "5-field cron, checked at
 * plan"), or whose plain fields are out of range, with the fix; undefined otherwise. A syntax the provider does not
 * read is only warned of ({@link scheduleWarning}): the local platform's parser is no rule of the platform's.
 */
export function scheduleProblem(schedule: string): string | undefined {
  const { error } = check(schedule);
  return error && `${error}. ${FIX}`;
}

/** The warning of a five-field schedule in a syntax the provider does not read, which the agent server may refuse. */
export function scheduleWarning(schedule: string): string | undefined {
  const { unread } = check(schedule);
  return unread && `The provider does not read this schedule (${unread}); the agent server may accept it, or refuse it at apply.`;
}

/** An import id that is not `<deployment_id>/<cron_id>`. */
export function badImportId(id: string): DiagnosticError {
  return new DiagnosticError(
    'Invalid import id',
    `"${id}" is not an import id of a cron: import one as <deployment_id>/<cron_id>, the deployment whose agent server runs it and the cron's id.`,
  );
}

/** An import of a cron the deployment's agent server does not have. */
export function noSuchCron(deploymentId: string, cronId: string): DiagnosticError {
  return new DiagnosticError(
    'Cannot import cron',
    `The agent server of deployment ${deploymentId} has no cron ${cronId}: check both ids (its crons are listed by POST /runs/crons/search).`,
  );
}

/** A create whose answer was lost, and whose cron the look-ups did not find. */
export function cronNotFound(summary: string, err: Error, found: { listed: boolean; lastFailure?: Error }): DiagnosticError {
  const looked = found.listed
    ? 'The crons of the deployment were searched and it was not among them, so the next apply creates it again.'
    : `The crons of the deployment could not be searched (${found.lastFailure?.message ?? 'no answer'}): the next apply searches again before it creates one.`;
  return new DiagnosticError(summary, `${err.message}. ${looked}`);
}
