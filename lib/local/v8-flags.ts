/**
 * V8 settings of the local platform's own process. The CLI (`agentplatform-local`) applies them before the platform
 * starts. V8 flags hold for the whole process and every isolate in it, the export's encode workers included, so they
 * are set where the process is the platform's, not by the modules that gain from them: a program that embeds the
 * platform with `startLocalPlatform` keeps its own settings.
 *
 * - `--max-inlined-bytecode-size-cumulative=230` (V8's default is 920): V8's optimising compiler inlines at most
 *   230 bytes of bytecode into one function. After the platform starts, each encode worker is an isolate of its own
 *   that compiles the Parquet writer's large functions for itself, several times over while their type feedback
 *   settles. With all their callees inlined, those compiles took a large share of the first export's CPU. With the
 *   smaller budget the first export of 100,000 runs without inputs/outputs took 5–7% less time (bench/export,
 *   interleaved runs), exports with warm workers were as fast as before, and the control plane's requests took
 *   about 2 µs more CPU each (docs/export-benchmark.md, "The first export after start").
 */
import { setFlagsFromString } from 'node:v8';

/** The flags, as on a `node` command line. */
export const PLATFORM_V8_FLAGS: readonly string[] = ['--max-inlined-bytecode-size-cumulative=230'];

/**
 * Applies {@link PLATFORM_V8_FLAGS} to this process. Code compiled from then on follows them, so it is called before
 * the platform starts (before any encode worker exists).
 */
export function applyPlatformV8Flags(): void {
  for (const flag of PLATFORM_V8_FLAGS) setFlagsFromString(flag);
}
