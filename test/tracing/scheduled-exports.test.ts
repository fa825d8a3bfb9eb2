/**
 * Scheduled exports on a manual clock: children cover [start + k·interval, start + (k+1)·interval), each created at
 * its end + 10 minutes with `source_bulk_export_id`; cancelling the parent stops spawning and leaves children alone.
 */
import type { BulkExport } from '../../lib/api/schemas/bulk-export';
import { ExportEngine, SPAWN_BATCH } from '../../lib/local/tracing/exports/engine';
import { ExportStore } from '../../lib/local/tracing/exports/store';
import { generateSyntheticRuns } from '../../lib/local/tracing/synthetic/generate';
import { CLOCK_START, isFinal, startScenario, type Scenario } from './support/scenario';

const HOUR = 3_600_000;
const TEN_MINUTES = 600_000;

let scenario: Scenario;

beforeEach(async () => {
  scenario = await startScenario({ days: 1 });
});
afterEach(async () => {
  await scenario.close();
});

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await condition()).toBe(true);
}

async function childrenOf(parentId: string): Promise<BulkExport[]> {
  return (await scenario.platform.client.listExports()).filter((exp) => exp.source_bulk_export_id === parentId);
}

function scheduled(startMs: number, intervalHours: number) {
  return scenario.platform.client.createExport({
    bulk_export_destination_id: scenario.destinationId,
    session_id: scenario.sessionId,
    start_time: new Date(startMs).toISOString(),
    interval_hours: intervalHours,
    export_fields: ['id', 'name', 'start_time'],
    filter: 'eq(is_root, true)',
  });
}

test('each child is spawned at its end + 10 minutes and covers the next interval', async () => {
  const parent = await scheduled(CLOCK_START, 2);
  expect(parent).toMatchObject({ interval_hours: 2, end_time: null, source_bulk_export_id: null });
  expect((await scenario.platform.client.getExport(parent.id)).status).toBe('Running');

  scenario.clock.advance(2 * HOUR + TEN_MINUTES - 1);
  expect(await childrenOf(parent.id)).toHaveLength(0);
  scenario.clock.advance(1);
  const [first] = await childrenOf(parent.id);
  expect(first).toMatchObject({
    source_bulk_export_id: parent.id,
    start_time: new Date(CLOCK_START).toISOString(),
    end_time: new Date(CLOCK_START + 2 * HOUR).toISOString(),
    interval_hours: null,
    export_fields: ['id', 'name', 'start_time'],
    filter: 'eq(is_root, true)',
    format_version: 'v1',
  });
  expect((await scenario.exportStatus(first.id, isFinal)).status).toBe('Completed');

  scenario.clock.advance(2 * HOUR);
  const children = await childrenOf(parent.id);
  expect(children.map((child) => [child.start_time, child.end_time])).toEqual([
    [new Date(CLOCK_START).toISOString(), new Date(CLOCK_START + 2 * HOUR).toISOString()],
    [new Date(CLOCK_START + 2 * HOUR).toISOString(), new Date(CLOCK_START + 4 * HOUR).toISOString()],
  ]);
});

test('a schedule that starts in the past catches up on every interval already due', async () => {
  const parent = await scheduled(CLOCK_START - 5 * HOUR, 1);
  const children = await childrenOf(parent.id);
  // ends at -4h, -3h, -2h and -1h are due (end + 10 min <= now); the one ending now is due in 10 minutes
  expect(children).toHaveLength(4);
  scenario.clock.advance(TEN_MINUTES);
  expect(await childrenOf(parent.id)).toHaveLength(5);
});

test('a schedule that starts 120 intervals in the past spawns every one, and runs 15 of them at a time while the rest wait', async () => {
  const INTERVALS = 120;
  generateSyntheticRuns(scenario.platform.stores.runs, {
    tenantId: scenario.platform.tenantId,
    sessionId: scenario.sessionId,
    count: 2 * INTERVALS,
    startMicros: (CLOCK_START - (INTERVALS + 1) * HOUR) * 1000,
    endMicros: CLOCK_START * 1000,
  });
  // the most one-off exports of the workspace Running at once, after every change of an export's status
  const setStatus = ExportStore.prototype.setExportStatus;
  let most = 0;
  const spy = jest.spyOn(ExportStore.prototype, 'setExportStatus').mockImplementation(function (this: ExportStore, ...args) {
    setStatus.apply(this, args);
    for (const running of this.runningExportsPerTenant().values()) most = Math.max(most, running);
  });
  try {
    scenario.proxy.setMode('hold-requests');
    // the last interval ends now and is due in 10 minutes: INTERVALS are due at once
    const parent = await scheduled(CLOCK_START - (INTERVALS + 1) * HOUR, 1);
    expect(parent.status).not.toBe('Failed');
    let children: BulkExport[] = [];
    await waitUntil(async () => (children = await childrenOf(parent.id)).length === INTERVALS);
    // with the store held, 15 are Running (those of an interval with nothing to write complete), the others queued
    await waitUntil(async () => (children = await childrenOf(parent.id)).filter((c) => c.status === 'Running').length === 15);
    const created = children.filter((c) => c.status === 'Created').length;
    expect(created).toBeGreaterThan(INTERVALS / 2);
    expect(children.filter((c) => c.status === 'Completed')).toHaveLength(INTERVALS - 15 - created);
    const starts = children.map((c) => Date.parse(c.start_time!)).sort((a, b) => a - b);
    expect(starts).toEqual(Array.from({ length: INTERVALS }, (_, k) => CLOCK_START - (INTERVALS + 1 - k) * HOUR));
    scenario.proxy.setMode('pass');
    scenario.proxy.release();
    for (const child of children) expect((await scenario.exportStatus(child.id, isFinal)).status).toBe('Completed');
    expect(most).toBe(15);
  } finally {
    spy.mockRestore();
  }
});

test('the request that creates a schedule with 400 intervals due spawns one batch of them; the others follow in the background', async () => {
  const INTERVALS = 400;
  // the children stored by the time the first pass (the one the create request makes) returns
  const spawn = jest.spyOn(ExportStore.prototype, 'spawnChild');
  const pump = ExportEngine.prototype.pump;
  let firstPass: number | undefined;
  const pumped = jest.spyOn(ExportEngine.prototype, 'pump').mockImplementation(function (this: ExportEngine) {
    pump.call(this);
    if (firstPass === undefined && spawn.mock.calls.length > 0) firstPass = spawn.mock.calls.length;
  });
  try {
    const parent = await scheduled(CLOCK_START - (INTERVALS + 1) * HOUR, 1);
    expect(firstPass).toBe(SPAWN_BATCH);
    await waitUntil(async () => (await childrenOf(parent.id)).length === INTERVALS);
    expect(spawn).toHaveBeenCalledTimes(INTERVALS);
  } finally {
    pumped.mockRestore();
    spawn.mockRestore();
  }
});

test('a crash between storing a child and counting it leaves no child, and the next pass spawns it once', async () => {
  const parent = await scheduled(CLOCK_START, 1);
  // the process dies right after the child is stored, before the schedule's count of children is
  const crash = jest.spyOn(ExportStore.prototype, 'setSpawnedCount').mockImplementationOnce(() => {
    throw new Error('crashed before counting the child');
  });
  try {
    expect(() => scenario.clock.advance(HOUR + TEN_MINUTES)).toThrow('crashed before counting the child');
  } finally {
    crash.mockRestore();
  }
  expect(await childrenOf(parent.id)).toHaveLength(0);
  // the engine's next pass, as after a restart (creating another export makes one)
  await scenario.createExport(1);
  const children = await childrenOf(parent.id);
  expect(children.map((child) => [child.start_time, child.end_time])).toEqual([
    [new Date(CLOCK_START).toISOString(), new Date(CLOCK_START + HOUR).toISOString()],
  ]);
});

test('cancelling the parent stops spawning and leaves spawned children alone', async () => {
  generateSyntheticRuns(scenario.platform.stores.runs, {
    tenantId: scenario.platform.tenantId,
    sessionId: scenario.sessionId,
    count: 40,
    startMicros: (CLOCK_START - 6 * HOUR) * 1000,
    endMicros: CLOCK_START * 1000,
  });
  scenario.proxy.setMode('hold-requests');
  const parent = await scheduled(CLOCK_START - 6 * HOUR, 1);
  const spawned = await childrenOf(parent.id);
  expect(spawned.length).toBeGreaterThan(0);
  const cancelled = await scenario.platform.client.cancelExport(parent.id);
  expect(cancelled.status).toBe('Cancelled');
  const countAtCancel = (await childrenOf(parent.id)).length;
  // three more intervals fall due (staying below the 4 h run timeout of the held children)
  scenario.clock.advance(3 * HOUR);
  expect(await childrenOf(parent.id)).toHaveLength(countAtCancel);
  const statuses = (await childrenOf(parent.id)).map((child) => child.status);
  expect(statuses).toEqual(new Array(countAtCancel).fill('Running'));
  scenario.proxy.setMode('pass');
  scenario.proxy.release();
  for (const child of await childrenOf(parent.id)) {
    expect((await scenario.exportStatus(child.id, isFinal)).status).toBe('Completed');
  }
  expect((await scenario.platform.client.getExport(parent.id)).status).toBe('Cancelled');
});
