/**
 * Where one `terraform plan` spends its time, read from terraform's trace log: each launch of the provider (to its
 * handshake, and how long it stayed), and the provider's own time per RPC (its DEBUG lines, which TF_LOG=trace turns
 * on; they cost a little themselves).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Launch {
  readonly started: number;
  handshake?: number;
  exited?: number;
  readonly calls: Map<string, { count: number; providerMs: number; firstMs: number }>;
}

const at = (line: string): number => Date.parse(line.slice(0, 24));

/** Runs one `terraform plan` in `dir` with TF_LOG=trace and summarizes its log. */
export async function planTrace(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const log = join(dir, 'trace.log');
  // asynchronous: the local platform the provider calls runs in this process
  await new Promise<void>((resolve, reject) => {
    const child = spawn('terraform', ['plan', '-no-color', '-input=false'], { cwd: dir, env: { ...env, TF_LOG: 'trace', TF_LOG_PATH: log }, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`terraform plan with TF_LOG=trace exited with ${code}`))));
  });
  const lines = readFileSync(log, 'utf8').split('\n').filter((line) => /^\d{4}-/.test(line));
  const launches: Launch[] = [];
  const open = (): Launch | undefined => launches.find((l) => l.exited === undefined);
  for (const line of lines) {
    if (/provider: starting plugin: path=\S*agentplatform/.test(line)) launches.push({ started: at(line), calls: new Map() });
    else if (line.includes('provider: using plugin: version=') && open() && open()!.handshake === undefined) open()!.handshake = at(line);
    else if (/provider: plugin process exited: plugin=\S*agentplatform/.test(line) && open()) open()!.exited = at(line);
    const answered = /provider\.agentplatform: (\w+)(?: \S+)? answered in (\d+) ms/.exec(line);
    if (answered && open()) {
      const call = open()!.calls.get(answered[1]!) ?? { count: 0, providerMs: 0, firstMs: Number(answered[2]) };
      call.count++;
      call.providerMs += Number(answered[2]);
      open()!.calls.set(answered[1]!, call);
    }
  }
  const total = at(lines[lines.length - 1]!) - at(lines[0]!);
  const out = launches.map((l, i) => {
    const calls = [...l.calls]
      .map(([method, c]) => `${method} x${c.count} (${c.providerMs} ms in handlers${c.count > 1 ? `, the first ${c.firstMs} ms` : ''})`)
      .join(', ');
    return `launch ${i + 1}: handshake after ${l.handshake! - l.started} ms, alive ${(l.exited ?? l.started) - l.started} ms: ${calls}`;
  });
  const alive = launches.reduce((sum, l) => sum + ((l.exited ?? l.started) - l.started), 0);
  out.push(`plan ${total} ms (traced), of which ${alive} ms with a provider process alive`);
  return out.join('\n');
}
