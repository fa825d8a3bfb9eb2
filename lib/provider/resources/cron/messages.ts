/** What the cron resource tells the user: the problems of a configuration, and the errors of its look-ups. */
import { DiagnosticError } from '../../framework';

/** The problem of a schedule that is no five-field cron expression, with the fix; undefined when it parses. */
export function scheduleProblem(schedule: string): string | undefined {
  // loaded only when a schedule is checked: plans that have no cron never load the parser
  const { CronExpression, CronExpressionError } = require('../../../api/cron-expression') as typeof import('../../../api/cron-expression');
  try {
    CronExpression.parse(schedule);
    return undefined;
  } catch (err) {
    if (!(err instanceof CronExpressionError)) throw err;
    return `${err.message}. Write five fields, minute (0-59) hour (0-23) day-of-month (1-31) month (1-12) day-of-week (0-7), in UTC: for example "0 9 * * mon-fri".`;
  }
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
