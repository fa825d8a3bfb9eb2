/**
 * One run of a deployment's post-deploy check: a stateless run streamed from the deployment's agent server
 * (`POST /runs/stream`, the `values` mode), and what its final answer says. The run keeps nothing on the agent server
 * (no thread), so running it again after a failure or an interruption leaves nothing behind.
 */
import type { StreamChunk } from '../../../api/agent-server';
import { agentServerAt } from '../../agent-server';
import { formatDuration, parseDuration, type ProviderContext } from '../../framework';

/** The check as configured (`smoke_test`), its JSON input still text. */
export interface SmokeTestSettings {
  readonly assistant_id: string | null;
  readonly input: string | null;
  readonly expect_contains: string | null;
  readonly timeout: string | null;
}

/** How long the run may take when `timeout` is left out. */
export const DEFAULT_SMOKE_TEST_TIMEOUT = '2m';

/** Why a check did not pass: the sentence the diagnostic gives. */
export interface SmokeTestFailure {
  readonly reason: 'error' | 'timeout' | 'answer' | 'stopped';
  readonly detail: string;
}

/** Longest part of an answer quoted in a diagnostic. */
const QUOTED_CHARS = 300;

/** Runs the check against the agent server at `url`: undefined when it passes, else why not. Never throws. */
export async function runSmokeTest(ctx: ProviderContext, url: string, check: SmokeTestSettings, signal: AbortSignal): Promise<SmokeTestFailure | undefined> {
  const limitMs = parseDuration(check.timeout ?? DEFAULT_SMOKE_TEST_TIMEOUT) ?? 0;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, limitMs);
  const stop = (): void => controller.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  let values: unknown;
  let runId: string | undefined;
  try {
    const body = { assistant_id: check.assistant_id!, input: JSON.parse(check.input!) as Record<string, unknown>, stream_mode: 'values' as const };
    const chunks: AsyncGenerator<StreamChunk> = agentServerAt(ctx, url).runs.stream(null, body, { signal: controller.signal, timeoutMs: limitMs });
    for await (const chunk of chunks) {
      if (chunk.mode === 'metadata') runId = chunk.data.run_id;
      else if (chunk.mode === 'values') values = chunk.data;
    }
  } catch (err) {
    const run = runId ? `run ${runId}` : 'the run';
    if (timedOut) return { reason: 'timeout', detail: `${capitalize(run)} did not finish within ${formatDuration(limitMs)} (\`timeout\`).` };
    if (signal.aborted) return { reason: 'stopped', detail: `Terraform stopped before ${run} finished.` };
    const runError = err as { errorType?: string; serverMessage?: string; message?: string };
    if (runError.errorType !== undefined) return { reason: 'error', detail: sentence(`${capitalize(run)} failed: ${runError.errorType}: ${runError.serverMessage}`) };
    return { reason: 'error', detail: sentence(`${capitalize(run)} could not be made: ${runError.message ?? String(err)}`) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
  if (values === undefined) return { reason: 'answer', detail: `${capitalize(runId ? `run ${runId}` : 'the run')} ended without values.` };
  const expected = check.expect_contains;
  if (expected === null) return undefined;
  const answer = answerText(values);
  if (answer.includes(expected)) return undefined;
  const quoted = answer.length > QUOTED_CHARS ? `${answer.slice(0, QUOTED_CHARS)}…` : answer;
  return { reason: 'answer', detail: `The answer of ${runId ? `run ${runId}` : 'the run'} does not contain ${JSON.stringify(expected)}: ${JSON.stringify(quoted)}.` };
}

/**
 * The text of a run's final values: the content of the last message (the text parts of a content list, as LangChain
 * messages carry them), or the values as JSON when they hold no message.
 */
export function answerText(values: unknown): string {
  const messages = (values as { messages?: unknown } | null)?.messages;
  const last = Array.isArray(messages) ? (messages[messages.length - 1] as { content?: unknown } | undefined) : undefined;
  const content = last?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
  }
  return JSON.stringify(values);
}

/** The message of a JSON text that is not an object, the run input the agent server takes; undefined when it is one. */
export function inputProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not JSON: write it with jsonencode(), e.g. jsonencode({ messages = [{ role = "user", content = "hello" }] })';
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? undefined : 'must be a JSON object, e.g. jsonencode({ messages = [{ role = "user", content = "hello" }] })';
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const sentence = (s: string): string => (/[.!?]$/.test(s.trimEnd()) ? s.trimEnd() : `${s.trimEnd()}.`);
