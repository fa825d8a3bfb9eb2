/**
 * `TracingProject`: a tracing project created here, or one made elsewhere found by its name
 * (`TracingProject.fromName`); either is what `BulkExport` and `ScheduledExport` take as `tracingProject`.
 */
import type { TerraformProvider } from 'cdktf';
import { Construct, type IConstruct } from 'constructs';
import { messages, warnIfProblem } from './errors';
import { DataAgentplatformTracingProject } from './generated/data-agentplatform-tracing-project';
import { TracingProject as TracingProjectResource } from './generated/tracing-project';

/** A tracing project, created here or elsewhere. */
export interface ITracingProject extends IConstruct {
  /** The project id (a UUID): a bulk export's `session_id`. */
  readonly tracingProjectId: string;
  /** The project name. */
  readonly projectName: string;
}

/** Props of {@link TracingProject}. */
export interface TracingProjectProps {
  /** The project name, unique in the workspace; a change renames the project in place. */
  readonly name: string;
  /**
   * A description of the project.
   * @default none (nothing is sent)
   */
  readonly description?: string;
  /**
   * Key-value metadata of the project, e.g. `{ team: 'support' }`.
   * @default none (nothing is sent)
   */
  readonly metadata?: Record<string, string>;
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/** Options of {@link TracingProject.fromName}. */
export interface TracingProjectLookupOptions {
  /**
   * The agentplatform provider to use.
   * @default the stack's default agentplatform provider
   */
  readonly provider?: TerraformProvider;
}

/**
 * A tracing project: where runs are traced to, and what bulk exports read. Destroy deletes it, and its runs with it.
 *
 * ```ts
 * const project = new TracingProject(this, 'Support', { name: 'support-agent', metadata: { team: 'support' } });
 * new ScheduledExport(this, 'Daily', { destination, tracingProject: project, start: '2025-01-01T00:00:00Z', every: Duration.hours(24) });
 * ```
 */
export class TracingProject extends Construct implements ITracingProject {
  /**
   * A project of the provider's workspace made elsewhere (by the agents that trace into it, say), read by its name
   * at plan: a name no project has fails the plan.
   */
  static fromName(scope: Construct, id: string, name: string, options: TracingProjectLookupOptions = {}): ITracingProject {
    return new TracingProjectByName(scope, id, name, options);
  }

  /** The project id (a UUID). */
  readonly tracingProjectId: string;
  /** The project name. */
  readonly projectName: string;
  /** The `agentplatform_tracing_project` resource, for escape hatches. */
  readonly resource: TracingProjectResource;

  constructor(scope: Construct, id: string, props: TracingProjectProps) {
    super(scope, id);
    checkName(this, props.name);
    this.resource = new TracingProjectResource(this, 'Resource', {
      name: props.name,
      description: props.description,
      metadata: props.metadata && { ...props.metadata },
      provider: props.provider,
    });
    this.tracingProjectId = this.resource.id;
    this.projectName = props.name;
  }
}

/** A project found by name through the `agentplatform_tracing_project` data source. */
class TracingProjectByName extends Construct implements ITracingProject {
  readonly tracingProjectId: string;
  readonly projectName: string;
  /** The `agentplatform_tracing_project` data source, for escape hatches. */
  readonly dataSource: DataAgentplatformTracingProject;

  constructor(scope: Construct, id: string, name: string, options: TracingProjectLookupOptions) {
    super(scope, id);
    checkName(this, name);
    this.dataSource = new DataAgentplatformTracingProject(this, 'Resource', { name, provider: options.provider });
    this.tracingProjectId = this.dataSource.id;
    this.projectName = name;
  }
}

/** An empty name is a warning: the specification states no rule of tracing project names. */
function checkName(scope: IConstruct, name: string): void {
  warnIfProblem(scope, 'name', name, (value) => (value.trim() === '' ? messages.emptyValue() : undefined));
}
