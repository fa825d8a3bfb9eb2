/**
 * `Cron`: runs of an assistant on a schedule, on a deployment's agent server (the provider's `agentplatform_cron`).
 * The schedule is checked at synth; input, config and metadata are plain objects, written to the stack as JSON.
 */
import { Fn, Token, type TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { checkSchedule } from '../api/cron-expression';
import type { IDeployment } from './deployment-ref';
import { Violations, messages, warnIfProblem } from './errors';
import { Cron as CronResource } from './generated/cron';

/** Props of a {@link Cron}. */
export interface CronProps {
  /** The deployment whose agent server runs the cron; a change replaces the cron. */
  readonly deployment: IDeployment;
  /** The assistant each run uses: an assistant id, or a graph id for that graph's default assistant. */
  readonly assistantId: string;
  /** When it runs: a five-field cron expression in UTC (`minute hour day-of-month month day-of-week`), e.g. `0 9 * * mon-fri`. */
  readonly schedule: string;
  /**
   * The input of each run, e.g. `{ messages: [{ role: 'user', content: '...' }] }`.
   * @default none
   */
  readonly input?: { [key: string]: any };
  /**
   * The run config of each run (`configurable`, `tags`, `recursion_limit`).
   * @default none
   */
  readonly config?: { [key: string]: any };
  /**
   * Metadata of the cron, carried by each run; removing a key later replaces the cron.
   * @default none
   */
  readonly metadata?: { [key: string]: any };
  /**
   * A thread each run is added to; a change replaces the cron.
   * @default none: each run is stateless
   */
  readonly threadId?: string;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** An object as the stack holds it: JSON text, or `jsonencode(...)` when it holds values known only at apply. */
function jsonAttribute(value: { [key: string]: unknown } | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return Token.isUnresolved(text) ? Fn.jsonencode(value) : text;
}

/**
 * Runs of an assistant on a schedule.
 *
 * ```ts
 * new Cron(this, 'MorningDigest', {
 *   deployment: agent,
 *   assistantId: 'agent',
 *   schedule: '0 9 * * mon-fri',
 *   input: { messages: [{ role: 'user', content: "Summarise yesterday's tickets." }] },
 * });
 * ```
 */
export class Cron extends Construct {
  /** The cron id the agent server gave it. */
  readonly cronId: string;
  /** When the cron runs next (RFC 3339), as the agent server last answered. */
  readonly nextRunDate: string;
  /** The `agentplatform_cron` resource, for escape hatches. */
  readonly resource: CronResource;

  constructor(scope: Construct, id: string, props: CronProps) {
    super(scope, id);
    const violations = new Violations();
    violations.check('schedule', props.schedule, (schedule) => {
      const { error } = checkSchedule(schedule);
      return error && messages.cronSchedule(error);
    });
    violations.throwIfAny('Cron', this);
    // a syntax the parser does not read may still be the agent server's: a warning, never a refusal
    warnIfProblem(this, 'schedule', props.schedule, (schedule) => {
      const { unread } = checkSchedule(schedule);
      return unread && `${unread}, a syntax this library does not check.`;
    });
    this.resource = new CronResource(this, 'Resource', {
      deploymentId: props.deployment.deploymentId,
      assistantId: props.assistantId,
      schedule: props.schedule,
      input: jsonAttribute(props.input),
      config: jsonAttribute(props.config),
      metadata: jsonAttribute(props.metadata),
      threadId: props.threadId,
      provider: props.provider,
    });
    this.cronId = this.resource.cronId;
    this.nextRunDate = this.resource.nextRunDate;
  }
}
