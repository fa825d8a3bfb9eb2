/**
 * The encode threads detach an ArrayBuffer as they start, so V8 compiles their typed-array code once for a process
 * in which buffers get detached (detach-early.ts). V8 itself reports each invalidation of its "ArrayBufferDetaching"
 * protector under `--trace-protector-invalidation`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const SUPPORT = join(__dirname, 'support');
const INVALIDATION = 'Invalidating protector cell ArrayBufferDetaching';

/** The probe's output in a mode, and how many times a thread invalidated the protector. */
function probe(mode: string): { done: string; invalidations: number } {
  const result = spawnSync(
    process.execPath,
    ['--trace-protector-invalidation', '-r', join(SUPPORT, 'ts-register.js'), join(SUPPORT, 'detach-probe.ts'), mode],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = result.stdout.split('\n');
  return {
    done: lines.find((line) => line.startsWith('done ')) ?? '',
    invalidations: lines.filter((line) => line.includes(INVALIDATION)).length,
  };
}

test('nothing invalidates the protector when no buffer is detached (the control)', () => {
  expect(probe('none')).toEqual({ done: 'done none', invalidations: 0 });
});

test('detachArrayBufferEarly invalidates the protector of its thread, once however often it is called', () => {
  expect(probe('function')).toEqual({ done: 'done main', invalidations: 1 });
});

test('the main thread and an encode worker each invalidate it on start, before any chunk is transferred', () => {
  expect(probe('worker')).toEqual({ done: 'done worker', invalidations: 2 });
});
