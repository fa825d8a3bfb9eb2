/** The schema of `agentplatform_cron`, and its model as the handlers see it. */
import { attr, defineSchema, type SchemaModel } from '../../framework';
import { sameUuid } from '../../../api/ids';
import { jsonObjectAttribute } from '../shared/json-object';
import { scheduleProblem } from './messages';

/** The schema of `agentplatform_cron`. */
export const cronSchema = defineSchema({
  description:
    "A cron on a deployment's agent server: it starts a run of an assistant on a schedule, on a thread (each run added " +
    "to the thread's queue) or stateless (each run on a new thread of its own). The schedule, input, config and metadata " +
    'change in place; the deployment, the assistant and the thread cannot.',
  attributes: {
    cron_id: attr.string({ computed: true, useStateForUnknown: true, description: 'The cron id the agent server gave it.' }),
    deployment_id: attr.string({
      required: true,
      requiresReplace: true,
      description: 'The deployment whose agent server runs the cron (`agentplatform_deployment.<name>.id`).',
    }),
    assistant_id: attr.string({
      required: true,
      description:
        "The assistant each run uses: an assistant id, or a graph id for that graph's default assistant. Naming another assistant replaces the cron; another name of the same one does not.",
    }),
    schedule: attr.string({
      required: true,
      validate: scheduleProblem,
      description: 'When it runs: a five-field cron expression in UTC, `minute hour day-of-month month day-of-week` (e.g. `0 9 * * mon-fri`). Changed in place.',
    }),
    input: jsonObjectAttribute('The input of each run, as JSON (`jsonencode({ messages = [...] })`). Default: none. Changed in place.'),
    config: jsonObjectAttribute('The run config of each run, as JSON (`configurable`, `tags`, `recursion_limit`). Default: none. Changed in place.'),
    metadata: jsonObjectAttribute(
      'Metadata of the cron, as JSON; each run carries it. Default: none. Changed in place; removing a key replaces the cron, as the agent server merges metadata.',
    ),
    thread_id: attr.string({
      optional: true,
      requiresReplace: true,
      sameValue: sameUuid,
      description: 'A thread each run is added to. Default: none, each run stateless.',
    }),
    next_run_date: attr.string({ computed: true, description: 'When the cron runs next (RFC 3339), as the agent server last answered; null when it will not run again.' }),
  },
});

/** The attributes of `agentplatform_cron` as handlers see them. */
export type CronModel = SchemaModel<typeof cronSchema>;
