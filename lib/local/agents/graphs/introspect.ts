/**
 * What an assistant tells of its graph, derived from the compiled graph itself: its drawing (nodes and edges, as
 * LangGraph's `get_graph().to_json()` gives them, with subgraphs drawn inside their node under `xray`), its JSON
 * Schemas (input, output and state from the channels, config from the `configurable` keys the graph declares) and
 * its subgraphs by namespace.
 */
import { END, START, type CompiledGraph, type JsonSchema } from '../engine/graph';

/** A node of a drawing: `START` and `END` are schema nodes, the others runnables named by their class path. */
export interface DrawnNode {
  readonly id: string;
  readonly type: 'schema' | 'runnable';
  readonly data: string | { readonly id: readonly string[]; readonly name: string };
}

/** An edge of a drawing; `conditional` when a router picks it at run time. */
export interface DrawnEdge {
  readonly source: string;
  readonly target: string;
  readonly conditional?: boolean;
}

/** The drawing of a graph. */
export interface GraphDrawing {
  readonly nodes: DrawnNode[];
  readonly edges: DrawnEdge[];
}

/** The schemas of a graph, as `GET /assistants/{id}/schemas` answers them. */
export interface GraphSchemas {
  readonly graph_id: string;
  readonly input_schema: JsonSchema;
  readonly output_schema: JsonSchema;
  readonly state_schema: JsonSchema;
  readonly config_schema: JsonSchema;
  readonly context_schema: JsonSchema | null;
}

const RUNNABLE_PATH = ['langgraph', 'utils', 'runnable', 'RunnableCallable'];
const GRAPH_PATH = ['langgraph', 'graph', 'state', 'CompiledStateGraph'];

/** How deep `xray` looks into subgraphs: `true` all the way, a number that many levels, `false` or 0 not at all. */
export function xrayDepth(xray: boolean | number | undefined): number {
  if (xray === true) return Number.POSITIVE_INFINITY;
  return typeof xray === 'number' && xray > 0 ? Math.floor(xray) : 0;
}

/** Draws `graph`, subgraphs opened `depth` levels deep (their own START and END left out, as LangGraph does). */
export function drawGraph(graph: CompiledGraph, depth = 0): GraphDrawing {
  const nodes: DrawnNode[] = [{ id: START, type: 'schema', data: START }];
  const edges: DrawnEdge[] = [];
  // the drawn nodes an edge into (entries) or out of (exits) each node of this graph stands for
  const entries = new Map<string, string[]>();
  const exits = new Map<string, string[]>();
  for (const name of graph.nodeNames) {
    const subgraph = graph.declared.subgraphs.get(name);
    if (subgraph && depth > 0) {
      const inner = drawGraph(subgraph, depth - 1);
      const prefixed = (id: string) => `${name}:${id}`;
      nodes.push(...inner.nodes.filter((node) => node.type === 'runnable').map((node) => ({ ...node, id: prefixed(node.id) })));
      for (const edge of inner.edges) {
        if (edge.source === START || edge.target === END) continue;
        edges.push({ ...edge, source: prefixed(edge.source), target: prefixed(edge.target) });
      }
      entries.set(name, inner.edges.filter((edge) => edge.source === START).map((edge) => prefixed(edge.target)));
      exits.set(name, inner.edges.filter((edge) => edge.target === END).map((edge) => prefixed(edge.source)));
    } else {
      nodes.push({ id: name, type: 'runnable', data: { id: subgraph ? GRAPH_PATH : RUNNABLE_PATH, name } });
    }
  }
  nodes.push({ id: END, type: 'schema', data: END });
  const connect = (source: string, target: string, conditional: boolean) => {
    for (const from of exits.get(source) ?? [source]) {
      for (const to of entries.get(target) ?? [target]) edges.push(conditional ? { source: from, target: to, conditional } : { source: from, target: to });
    }
  };
  for (const edge of graph.staticEdges) connect(edge.source, edge.target, false);
  // a router may pick any node, or the end, at run time
  for (const source of graph.routedNodes) for (const target of [...graph.nodeNames, END]) connect(source, target, true);
  return { nodes, edges };
}

/** The schemas of `graph`, served as `graphId`. */
export function graphSchemas(graphId: string, graph: CompiledGraph): GraphSchemas {
  const properties = Object.fromEntries(Object.entries(graph.spec).map(([name, channel]) => [name, channel.schema ?? {}]));
  const state = (title: string): JsonSchema => ({ title, type: 'object', properties });
  return {
    graph_id: graphId,
    // a run's input and a run's output are the state's channels, any of them
    input_schema: state(`${graph.name}_input`),
    output_schema: state(`${graph.name}_output`),
    state_schema: state(`${graph.name}_state`),
    config_schema: {
      title: 'Config',
      type: 'object',
      properties: { configurable: { type: 'object', properties: { ...graph.declared.configurable } } },
    },
    // the built-in graphs read no run context
    context_schema: null,
  };
}

/**
 * The subgraphs of `graph` by namespace (nested ones as `parent|child` when `recurse`), only those at or under
 * `namespace` when given; each with its schemas, served under the root graph's id.
 */
export function subgraphSchemas(
  graphId: string,
  graph: CompiledGraph,
  options: { namespace?: string; recurse?: boolean },
): Record<string, GraphSchemas> {
  const found: Record<string, GraphSchemas> = {};
  const visit = (current: CompiledGraph, prefix: string) => {
    for (const [name, subgraph] of current.declared.subgraphs) {
      const namespace = prefix ? `${prefix}|${name}` : name;
      const wanted = options.namespace === undefined || namespace === options.namespace;
      if (wanted) found[namespace] = graphSchemas(graphId, subgraph);
      if (options.recurse) visit(subgraph, namespace);
    }
  };
  visit(graph, '');
  return found;
}
