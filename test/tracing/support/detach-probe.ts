/**
 * A child process for detach-early.test.ts, run with `--trace-protector-invalidation`, which makes V8 print a line
 * each time a thread invalidates a protector. Mode `function` calls detachArrayBufferEarly twice; mode `worker`
 * encodes a day without runs in an encode worker, so no chunk buffer is ever transferred (whatever detaches, the
 * threads did it themselves on start); mode `none` does neither. Prints `done <thread>` at the end.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '../../../lib/local/db';
import { systemClock } from '../../../lib/local/clock';
import { detachArrayBufferEarly } from '../../../lib/local/tracing/exports/detach-early';
import { EncodeScheduler } from '../../../lib/local/tracing/exports/encode-pool';
import { TRACING_MIGRATIONS } from '../../../lib/local/tracing/store/migrations';
import { RunStore } from '../../../lib/local/tracing/store/runs';
import { SessionStore } from '../../../lib/local/tracing/store/sessions';
import { MICROS_PER_DAY, toMicros } from '../../../lib/local/tracing/store/time';

const TENANT = '00000000-0000-4000-8000-000000000001';

async function encodeEmptyDayInWorker(): Promise<string> {
  const db = openDatabase(mkdtempSync(join(tmpdir(), 'detach-probe-')));
  migrate(db, [TRACING_MIGRATIONS]);
  const sessions = new SessionStore(db, systemClock);
  const runs = new RunStore(db, sessions);
  const scheduler = new EncodeScheduler({ encodeThreads: 1, encodeWorkerMinRows: 0, segmentMinRows: 50_000 }, runs);
  const fromMicros = toMicros('2024-04-01T00:00:00Z');
  const source = await scheduler.open(
    {
      tenantId: TENANT,
      sessionId: sessions.getOrCreateByName(TENANT, 'probe').id,
      fromMicros,
      toMicros: fromMicros + MICROS_PER_DAY,
      cursor: null,
      until: null,
      fields: ['id', 'start_time'],
      formatVersion: 'v1',
      filter: null,
      limits: { rowGroupRows: 100, maxRowsPerFile: 1_000, maxFileBytes: 1024 * 1024, multipartChunkBytes: 5 * 1024 * 1024 },
    },
    new AbortController().signal,
  );
  const event = await source.next();
  if (event.kind !== 'end') throw new Error(`expected only an end event, got ${event.kind}`);
  source.close();
  await scheduler.close();
  db.close();
  return source.thread;
}

async function main(mode: string): Promise<void> {
  if (mode === 'function') {
    detachArrayBufferEarly();
    detachArrayBufferEarly();
    console.log('done main');
  } else if (mode === 'worker') {
    console.log(`done ${await encodeEmptyDayInWorker()}`);
  } else {
    console.log('done none');
  }
}

void main(process.argv[2] ?? 'none');
