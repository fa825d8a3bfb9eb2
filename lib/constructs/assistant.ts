/**
 * `Assistant`: a configured instance of one of a deployment's graphs, on the deployment's agent server, as runs and
 * crons name it. Made with `new Assistant(scope, id, { deployment, ... })` or `deployment.addAssistant(id, { ... })`.
 */
import { Fn, Token, type TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import type { IDeployment } from './deployment-ref';
import { Assistant as AssistantResource } from './generated/assistant';

/** The settings of an assistant of a known deployment. */
export interface AssistantOptions {
  /** The graph the assistant runs, one the deployment serves (e.g. `agent`); changes in place. */
  readonly graphId: string;
  /**
   * Name of the assistant; changes in place.
   * @default the agent server's (LangGraph servers: `Untitled`)
   */
  readonly name?: string;
  /**
   * What the assistant is for; changes in place.
   * @default none
   */
  readonly description?: string;
  /**
   * Run configuration: `configurable`, `tags`, `recursion_limit`, ...; changes in place.
   * @default {}
   */
  readonly config?: Readonly<Record<string, unknown>>;
  /**
   * Static context the graph reads at run time; changes in place.
   * @default {}
   */
  readonly context?: Readonly<Record<string, unknown>>;
  /**
   * Metadata; a member of null value counts as absent; changes in place.
   * @default {}
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The provider to use.
   * @default the stack's agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** The settings of an assistant. */
export interface AssistantProps extends AssistantOptions {
  /** The deployment whose agent server holds the assistant; another deployment replaces the assistant. */
  readonly deployment: IDeployment;
}

/**
 * An assistant of a deployment's graph (`agentplatform_assistant`).
 *
 * ```ts
 * const support = agent.addAssistant('Support', {
 *   graphId: 'agent',
 *   name: 'support',
 *   config: { configurable: { model: 'gpt-4o-mini' } },
 * });
 * new TerraformOutput(this, 'assistant', { value: support.assistantId });
 * ```
 */
export class Assistant extends Construct {
  /** The assistant id (a UUID), which runs and crons name it by. */
  readonly assistantId: string;
  /** The assistant's version: 1 on create, one more with every update. */
  readonly version: number;
  /** The `agentplatform_assistant` resource, for escape hatches. */
  readonly resource: AssistantResource;

  constructor(scope: Construct, id: string, props: AssistantProps) {
    super(scope, id);
    this.resource = new AssistantResource(this, 'Resource', {
      deploymentId: props.deployment.deploymentId,
      graphId: props.graphId,
      name: props.name,
      description: props.description,
      config: jsonText(props.config),
      context: jsonText(props.context),
      metadata: jsonText(props.metadata),
      provider: props.provider,
    });
    this.assistantId = this.resource.assistantId;
    this.version = this.resource.version;
  }
}

/** An object as the JSON text the resource takes: written out, or `jsonencode(...)` when it holds references. */
function jsonText(value: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return Token.isUnresolved(text) ? Fn.jsonencode(value) : text;
}
