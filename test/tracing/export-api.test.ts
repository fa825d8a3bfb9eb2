/**
 * The bulk export API's contract: request validation (422 HTTPValidationError naming each bad field), not found,
 * auth, and the client's own refusals before sending. Each rule of the export validation list has a test.
 */
import { z } from 'zod';
import { validateFilter } from '../../lib/api/filter';
import { ConflictError, InvalidArgumentError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib/api/errors';
import type { TracingPlatform } from './support/platform';
import { waitFor } from './support/wait';
import { startApiFixture, type ApiFixture, type TestS3 } from './support/s3';

let fixture: ApiFixture;
let s3: TestS3;
let platform: TracingPlatform;
let destinationId: string;
let sessionId: string;

beforeAll(async () => {
  fixture = await startApiFixture('api');
  ({ s3, platform, destinationId, sessionId } = fixture);
});

afterAll(() => fixture?.close());

/** POSTs a raw export body (bypassing the client's checks) and returns the 422 items. */
async function invalid(overrides: Record<string, unknown>, omit: string[] = []): Promise<{ loc: (string | number)[]; msg: string; type: string }[]> {
  const body: Record<string, unknown> = {
    bulk_export_destination_id: destinationId,
    session_id: sessionId,
    start_time: '2024-01-01T00:00:00Z',
    end_time: '2024-01-02T00:00:00Z',
    ...overrides,
  };
  for (const key of omit) delete body[key];
  const error = await platform.client.transport.request({ method: 'POST', path: '/api/v1/bulk-exports', body }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(ValidationError);
  return ((error as ValidationError).body as { detail: { loc: (string | number)[]; msg: string; type: string }[] }).detail;
}

describe('export request validation (422)', () => {
  test('the project must exist in the workspace', async () => {
    const items = await invalid({ session_id: '00000000-0000-4000-8000-000000000000' });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'session_id'], type: 'value_error' })]);
  });

  test('the destination must exist in the workspace', async () => {
    const items = await invalid({ bulk_export_destination_id: '00000000-0000-4000-8000-000000000000' });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'bulk_export_destination_id'] })]);
  });

  test('a one-off export may not end in the future (beyond 10 minutes of clock skew): later runs would be missed', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const [item] = await invalid({ start_time: new Date(Date.now() - 86_400_000).toISOString(), end_time: inAnHour });
    expect(item).toMatchObject({ loc: ['body', 'end_time'], type: 'value_error' });
    expect(item.msg).toMatch(/^Value error, end_time is in the future \(the platform's time is .*\): .* or make it scheduled with interval_hours/);
    const inFiveMinutes = new Date(Date.now() + 300_000).toISOString();
    const created = await platform.client.createExport({ bulk_export_destination_id: destinationId, session_id: sessionId, start_time: inFiveMinutes.slice(0, 10) + 'T00:00:00Z', end_time: inFiveMinutes });
    expect(created.end_time).toBe(inFiveMinutes);
  });

  test('start_time must be before end_time', async () => {
    const items = await invalid({ end_time: '2024-01-01T00:00:00Z' });
    expect(items).toEqual([{ loc: ['body', 'end_time'], msg: 'Value error, end_time must be after start_time', type: 'value_error' }]);
  });

  test('an export covers at most 1000 UTC days (the local platform\'s limit), and a schedule may start any time in the past', async () => {
    expect(await invalid({ end_time: '2026-09-28T00:00:01Z' })).toEqual([
      { loc: ['body', 'end_time'], msg: 'Value error, an export covers at most 1000 UTC days: split the range into several exports', type: 'value_error' },
    ]);
    // 2024-01-01 to 2026-09-27 is 1000 days: not refused for its length (the project does not exist)
    expect(await invalid({ end_time: '2026-09-27T00:00:00Z', session_id: '00000000-0000-4000-8000-000000000000' })).toEqual([
      expect.objectContaining({ loc: ['body', 'session_id'] }),
    ]);
    // thousands of hourly intervals due since 2024: only the missing project is refused (the queue runs them)
    expect(await invalid({ interval_hours: 1, session_id: '00000000-0000-4000-8000-000000000000' }, ['end_time'])).toEqual([
      expect.objectContaining({ loc: ['body', 'session_id'] }),
    ]);
  });

  test('timestamps must be ISO 8601', async () => {
    const items = await invalid({ start_time: 'yesterday' });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'start_time'], type: 'datetime_from_date_parsing' })]);
  });

  test('end_time is required unless interval_hours is given', async () => {
    const items = await invalid({}, ['end_time']);
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'end_time'], type: 'missing' })]);
  });

  test('end_time must be omitted for a scheduled export', async () => {
    const items = await invalid({ interval_hours: 24 });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'end_time'], type: 'value_error' })]);
  });

  test('interval_hours is an integer from 1 to 168', async () => {
    expect(await invalid({ interval_hours: 0 }, ['end_time'])).toEqual([
      { loc: ['body', 'interval_hours'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
    ]);
    expect(await invalid({ interval_hours: 169 }, ['end_time'])).toEqual([
      { loc: ['body', 'interval_hours'], msg: 'Input should be less than or equal to 168', type: 'less_than_equal' },
    ]);
    expect(await invalid({ interval_hours: 1.5 }, ['end_time'])).toEqual([expect.objectContaining({ loc: ['body', 'interval_hours'] })]);
    // not a number at all: named an integer, as the field is
    expect(await invalid({ interval_hours: '24' }, ['end_time'])).toEqual([
      { loc: ['body', 'interval_hours'], msg: 'Input should be a valid integer', type: 'int_type' },
    ]);
  });

  test('export_fields must name exportable fields', async () => {
    const items = await invalid({ export_fields: ['id', 'inputz', 'name'] });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'export_fields', 1], type: 'enum' })]);
    expect(items[0].msg).toContain("got 'inputz'");
  });

  test('the filter must parse; the message points at the offending position', async () => {
    const items = await invalid({ filter: 'and(eq(run_type, "llm"), gt(latency,' });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'filter'], type: 'value_error' })]);
    expect(items[0].msg).toMatch(/column \d+|position \d+|\^/);
  });

  test('an empty filter is refused as the parser refuses it: leave filter out to export every run', async () => {
    for (const filter of ['', '   ']) {
      const items = await invalid({ filter });
      expect(items).toEqual([expect.objectContaining({ loc: ['body', 'filter'], type: 'value_error' })]);
      expect(items[0].msg).toContain((validateFilter(filter) as { error: Error }).error.message);
    }
  });

  test('format_version is v1 or v2_beta', async () => {
    const items = await invalid({ format_version: 'v3' });
    expect(items).toEqual([expect.objectContaining({ loc: ['body', 'format_version'], type: 'enum' })]);
  });

  test('every problem is reported at once', async () => {
    const items = await invalid({ interval_hours: 500, export_fields: ['nope'], filter: 'eq(' });
    expect(items.map((item) => item.loc.join('.')).sort()).toEqual(['body.end_time', 'body.export_fields.0', 'body.filter', 'body.interval_hours']);
    // a field of the wrong type hides none of the others' problems, as with pydantic's field validators
    const alongTypeErrors = await invalid({ format_version: 'v3', export_fields: ['id', 'id', 'nope'], filter: 'eq(run_typ, "llm")', start_time: 'soon' }, ['session_id']);
    expect(alongTypeErrors.map((item) => item.loc.join('.')).sort()).toEqual([
      'body.export_fields.1',
      'body.export_fields.2',
      'body.filter',
      'body.format_version',
      'body.session_id',
      'body.start_time',
    ]);
  });
});

describe('a body that does not parse still gets every check its other fields allow', () => {
  const unknownId = '00000000-0000-4000-8000-000000000000';
  const where = (items: { loc: (string | number)[]; type: string }[]) => items.map((item) => [item.loc.join('.'), item.type]);

  test('an empty body: every required field is missing, end_time too', async () => {
    expect(where(await invalid({}, ['bulk_export_destination_id', 'session_id', 'start_time', 'end_time']))).toEqual([
      ['body.bulk_export_destination_id', 'missing'],
      ['body.session_id', 'missing'],
      ['body.start_time', 'missing'],
      ['body.end_time', 'missing'],
    ]);
  });

  test('the destination and the project must exist, whatever the type of start_time', async () => {
    expect(where(await invalid({ bulk_export_destination_id: unknownId, session_id: unknownId, start_time: 5 }))).toEqual([
      ['body.start_time', 'string_type'],
      ['body.bulk_export_destination_id', 'value_error'],
      ['body.session_id', 'value_error'],
    ]);
  });

  test('end_time is checked against start_time and interval_hours beside a format_version of the wrong value', async () => {
    expect(where(await invalid({ format_version: 'v3', end_time: '2023-12-31T00:00:00Z' }))).toEqual([
      ['body.format_version', 'enum'],
      ['body.end_time', 'value_error'],
    ]);
    expect(where(await invalid({ format_version: 'v3', interval_hours: 24 }))).toEqual([
      ['body.format_version', 'enum'],
      ['body.end_time', 'value_error'],
    ]);
    expect(where(await invalid({ format_version: 'v3' }, ['end_time']))).toEqual([
      ['body.format_version', 'enum'],
      ['body.end_time', 'missing'],
    ]);
    // a value of the wrong type is that problem only, not a missing one
    expect(where(await invalid({ end_time: 5 }))).toEqual([['body.end_time', 'string_type']]);
  });
});

describe('resources and errors', () => {
  test('an export gets one run per UTC day and is listed; format_version defaults to v1', async () => {
    const created = await platform.client.createExport({
      bulk_export_destination_id: destinationId,
      session_id: sessionId,
      start_time: '2024-01-01T12:00:00Z',
      end_time: '2024-01-03T06:00:00Z',
    });
    expect(created.format_version).toBe('v1');
    const runs = await platform.client.listExportRuns(created.id);
    expect(runs.map((run) => [run.start_time, run.end_time])).toEqual([
      ['2024-01-01T12:00:00.000Z', '2024-01-02T00:00:00.000Z'],
      ['2024-01-02T00:00:00.000Z', '2024-01-03T00:00:00.000Z'],
      ['2024-01-03T00:00:00.000Z', '2024-01-03T06:00:00.000Z'],
    ]);
    expect((await platform.client.listExports()).map((exp) => exp.id)).toContain(created.id);
  });

  test("a destination's config lists every field, with its default when it was not given", async () => {
    const destination = await platform.client.getDestination(destinationId);
    expect(destination.config).toEqual({ bucket_name: 'exports', prefix: '', endpoint_url: s3.server.endpoint, region: null, include_bucket_in_prefix: false });
    const raw = (await (await fetch(`${platform.url}/api/v1/bulk-exports/destinations/${destinationId}`, { headers: { 'X-Api-Key': platform.apiKey } })).json()) as { config: object };
    expect(Object.keys(raw.config).sort()).toEqual(['bucket_name', 'endpoint_url', 'include_bucket_in_prefix', 'prefix', 'region']);
    // given as null, a field still shows its default
    const nulls = await platform.client.createDestination({
      display_name: 'nulls',
      config: { bucket_name: 'exports', prefix: '', endpoint_url: s3.server.endpoint, region: null, include_bucket_in_prefix: null },
      credentials: s3.credentials,
    });
    expect(nulls.config).toMatchObject({ region: null, include_bucket_in_prefix: false });
  });

  test('no answer of the destination routes carries its credentials, only their names (raw bodies, not through the client)', async () => {
    const sessionToken = 'session-token-that-must-not-come-back';
    const send = async (method: string, path: string, body?: object): Promise<{ status: number; text: string }> => {
      const response = await fetch(`${platform.url}/api/v1/bulk-exports/destinations${path}`, {
        method,
        headers: { 'X-Api-Key': platform.apiKey, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    };
    const credentials = { ...s3.credentials, session_token: sessionToken };
    const created = await send('POST', '', {
      display_name: 'raw',
      config: { bucket_name: 'exports', prefix: 'raw', endpoint_url: s3.server.endpoint },
      credentials,
    });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.text) as { id: string };
    const answers = [created, await send('GET', `/${id}`), await send('GET', ''), await send('PATCH', `/${id}`, { credentials })];
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 200, 200]);
    for (const { text } of answers) {
      for (const secret of Object.values(credentials)) expect(text).not.toContain(secret);
      expect(text).not.toContain('"credentials"');
    }
    expect(JSON.parse(answers[3].text)).toMatchObject({ id, credentials_keys: ['access_key_id', 'secret_access_key', 'session_token'] });
  });

  test('unknown export and destination ids are 404 {"detail"}; a malformed id is 422', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(platform.client.getExport(missing)).rejects.toMatchObject({ status: 404, body: { detail: `Bulk export ${missing} not found` } });
    await expect(platform.client.listExportRuns(missing)).rejects.toBeInstanceOf(NotFoundError);
    await expect(platform.client.getDestination(missing)).rejects.toBeInstanceOf(NotFoundError);
    await expect(platform.client.transport.request({ method: 'GET', path: '/api/v1/bulk-exports/nope' })).rejects.toMatchObject({
      status: 422,
      body: { detail: [expect.objectContaining({ loc: ['path', 'export_id'], type: 'uuid_parsing' })] },
    });
  });

  test('PATCH accepts only {"status": "Cancelled"}; a finished export cannot be cancelled (409)', async () => {
    const created = await platform.client.createExport({
      bulk_export_destination_id: destinationId,
      session_id: sessionId,
      start_time: '2023-01-01T00:00:00Z',
      end_time: '2023-01-01T01:00:00Z',
    });
    const path = `/api/v1/bulk-exports/${created.id}`;
    await expect(platform.client.transport.request({ method: 'PATCH', path, body: { status: 'Running' } })).rejects.toMatchObject({
      constructor: ValidationError,
      items: [expect.objectContaining({ loc: ['body', 'status'], type: 'enum' })],
    });
    // no status at all is a missing field, as pydantic says it
    await expect(platform.client.transport.request({ method: 'PATCH', path, body: {} })).rejects.toMatchObject({
      items: [{ loc: ['body', 'status'], msg: 'Field required', type: 'missing' }],
    });
    await waitFor('the export to complete', async () => ((await platform.client.getExport(created.id)).status === 'Completed' ? true : undefined));
    await expect(platform.client.cancelExport(created.id)).rejects.toBeInstanceOf(ConflictError);
  });

  test('every route needs an API key (401) and a workspace of the key (403); workspaces see only their own exports', async () => {
    const anonymous = platform.clientFor('not-a-valid-key');
    await expect(anonymous.listExports()).rejects.toBeInstanceOf(UnauthorizedError);
    const stranger = platform.auth.createOrganization('stranger');
    await expect(platform.clientFor(platform.apiKey, stranger.tenantIds[0]).listExports()).rejects.toMatchObject({ status: 403 });
    const outsider = platform.clientFor(stranger.apiKey);
    expect(await outsider.listExports()).toEqual([]);
    expect(await outsider.listDestinations()).toEqual([]);
    await expect(outsider.getDestination(destinationId)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('the client refuses what the server would refuse for certain, before sending', async () => {
    const base = { bulk_export_destination_id: destinationId, session_id: sessionId, start_time: '2024-01-01T00:00:00Z' };
    await expect(platform.client.createExport(base)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(platform.client.createExport({ ...base, end_time: '2024-01-02T00:00:00Z', interval_hours: 1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(platform.client.createExport({ ...base, interval_hours: 169 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(platform.client.getExport('')).rejects.toBeInstanceOf(InvalidArgumentError);
    // an export id is a plain string in the spec: the server judges it (the local platform's ids are uuids)
    await expect(platform.client.getExport('not-a-uuid')).rejects.not.toBeInstanceOf(InvalidArgumentError);
  });

  test('statuses are parsed in both spellings', async () => {
    const { BulkExportStatus } = await import('../../lib/api/schemas/bulk-export');
    expect(['COMPLETED', 'Completed', 'TIMEDOUT', 'TimedOut', 'cancelled'].map((s) => BulkExportStatus.parse(s))).toEqual([
      'Completed',
      'Completed',
      'TimedOut',
      'TimedOut',
      'Cancelled',
    ]);
    expect(BulkExportStatus.safeParse('Paused').success).toBe(false);
  });
});

describe('trace store', () => {
  test('projects: create, find by name, get by id; names are unique per workspace', async () => {
    const created = await platform.client.createSession({ name: 'trace-store', description: 'runs of the bot' });
    expect(await platform.client.findSessionByName('trace-store')).toEqual(created);
    expect(await platform.client.getSession(created.id)).toEqual(created);
    await expect(platform.client.createSession({ name: 'trace-store' })).rejects.toBeInstanceOf(ConflictError);
    expect(await platform.client.findSessionByName('missing')).toBeUndefined();
  });

  test('runs/batch creates a project named by session_name on first use, and refuses an unknown session_id', async () => {
    const result = await platform.client.ingestRuns({
      post: [{ name: 'root', run_type: 'chain', start_time: '2024-01-05T00:00:00Z', session_name: 'created-by-ingest' }],
    });
    expect(result).toEqual({ created: 1, patched: 0 });
    expect(await platform.client.findSessionByName('created-by-ingest')).toBeDefined();
    await expect(
      platform.client.ingestRuns({
        post: [{ name: 'x', run_type: 'chain', start_time: '2024-01-05T00:00:00Z', session_id: '00000000-0000-4000-8000-000000000000' }],
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  describe('runs/batch refuses what it could not store or export, and keeps ids in their canonical form', () => {
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${platform.url}/api/v1${path}`, {
        method,
        headers: { 'x-api-key': platform.apiKey, 'x-tenant-id': platform.tenantId, 'content-type': 'application/json' },
        body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { detail?: unknown } & Record<string, unknown> };
    };
    const run = (fields: Record<string, unknown>) => ({ name: 'r', run_type: 'chain', start_time: '2024-01-06T00:00:00Z', session_id: sessionId, ...fields });
    const id = (n: number) => `5a1e${String(n).padStart(4, '0')}-0000-4000-8000-000000000001`;

    test('an instant outside the years 1700-2199 (kept to the microsecond) is a 400, at create and at patch, and the stored run stays readable', async () => {
      expect((await send('POST', '/runs/batch', { post: [run({ id: id(1) })] })).status).toBe(202);
      const patched = await send('POST', '/runs/batch', { post: [], patch: [{ id: id(1), end_time: 1e16 }] });
      expect(patched).toEqual({
        status: 400,
        body: { detail: `Run ${id(1)}: field end_time is outside the years 1700-2199, the instants kept to the microsecond: 10000000000000000` },
      });
      expect((await send('POST', '/runs/batch', { post: [run({ id: id(2), start_time: 3e14 })] })).status).toBe(400);
      // a far-future placeholder, and an instant whose microseconds a number cannot hold: refused, not stored altered
      for (const instant of ['9999-12-31T23:59:59.999999Z', '2300-01-01T00:00:00.000001Z', '1600-01-01T00:00:00Z']) {
        expect([instant, (await send('POST', '/runs/batch', { post: [run({ id: id(2), start_time: instant })] })).status]).toEqual([instant, 400]);
      }
      expect((await send('POST', '/runs/batch', { post: [run({ id: id(2), start_time: '2199-12-31T23:59:59.999999Z' })] })).status).toBe(202);
      expect((await send('GET', `/runs/${id(2)}`)).body.start_time).toBe('2199-12-31T23:59:59.999999Z');
      expect((await send('GET', `/runs/${id(1)}`)).status).toBe(200);
    });

    test('a patch cannot clear status or tags, and a document nested too deep is refused: 400s, not 500s', async () => {
      expect((await send('POST', '/runs/batch', { post: [run({ id: id(3) })] })).status).toBe(202);
      for (const field of ['status', 'tags']) {
        expect(await send('POST', '/runs/batch', { post: [], patch: [{ id: id(3), [field]: null }] })).toEqual({
          status: 400,
          body: { detail: `Run ${id(3)}: field ${field} cannot be null` },
        });
      }
      // JSON that parses but is nested too deep to write again (written by hand: JSON.stringify cannot either); within
      // the body's own limit of nesting, beyond which the body is refused as a whole (test/local/hostile-bodies.test.ts)
      const deep = `${'['.repeat(9_000)}"leaf"${']'.repeat(9_000)}`;
      const body = JSON.stringify({ post: [run({ id: id(4), inputs: { deep: 'DEEP' } })] }).replace('"DEEP"', deep);
      const refused = await send('POST', '/runs/batch', body);
      expect(refused.status).toBe(400);
      expect((await send('GET', `/runs/${id(4)}`)).status).toBe(404);
    });

    test('ids sent in upper case are kept in lower case, so the project and the run are found again', async () => {
      const upperSession = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEE01';
      expect((await send('POST', '/sessions', { name: 'upper', id: upperSession })).status).toBe(201);
      const found = await send('GET', `/sessions/${upperSession}`);
      expect(found).toMatchObject({ status: 200, body: { id: upperSession.toLowerCase() } });
      const upperRun = 'CCCCCCCC-DDDD-4EEE-8FFF-00000000000A';
      expect((await send('POST', '/runs/batch', { post: [run({ id: upperRun, session_id: upperSession })] })).status).toBe(202);
      expect(await send('GET', `/runs/${upperRun}`)).toMatchObject({ status: 200, body: { id: upperRun.toLowerCase() } });
    });

    test('a duplicate id in a batch is skipped, and its children take the hierarchy of the run that is stored', async () => {
      const parent = id(5);
      const child = id(6);
      const otherTrace = id(7);
      const batch = {
        post: [
          run({ id: parent, start_time: '2024-01-06T00:00:00Z' }),
          run({ id: parent, start_time: '2024-01-07T00:00:00Z', trace_id: otherTrace }),
          run({ id: child, start_time: '2024-01-06T00:00:01Z', parent_run_id: parent }),
        ],
      };
      expect(await send('POST', '/runs/batch', batch)).toMatchObject({ status: 202, body: { created: 2 } });
      const stored = (await send('GET', `/runs/${child}`)).body;
      expect(stored).toMatchObject({ trace_id: parent, parent_run_ids: [parent] });
      expect(String(stored.dotted_order)).toMatch(new RegExp(`^20240106T000000000000Z${parent}\\.20240106T000001000000Z${child}$`));
    });

    test("a run's id is its workspace's own: the same run posted to two workspaces is stored in each, patched in each alone", async () => {
      const shared = id(11);
      const second = platform.auth.createWorkspace(platform.organizationId, 'replayed-into');
      const other = platform.clientFor(platform.apiKey, second);
      const otherSession = await other.createSession({ name: 'replayed' });
      expect(await send('POST', '/runs/batch', { post: [run({ id: shared, name: 'first copy' })] })).toMatchObject({ status: 202, body: { created: 1 } });
      const replayed = { id: shared, name: 'second copy', run_type: 'chain', start_time: '2024-01-06T00:00:00Z', session_id: otherSession.id };
      expect(await other.ingestRuns({ post: [replayed] })).toEqual({ created: 1, patched: 0 });
      // posted again in the same workspace: a duplicate, skipped
      expect(await other.ingestRuns({ post: [replayed] })).toEqual({ created: 0, patched: 0 });
      expect(await other.ingestRuns({ post: [], patch: [{ id: shared, end_time: '2024-01-06T00:00:05Z', error: 'only here' }] })).toEqual({ created: 0, patched: 1 });
      const mine = (await send('GET', `/runs/${shared}`)).body;
      expect(mine).toMatchObject({ name: 'first copy', session_id: sessionId, end_time: null, error: null, status: 'pending' });
      const theirs = await other.transport.request({ method: 'GET', path: `/api/v1/runs/${shared}`, schema: z.record(z.string(), z.unknown()) });
      expect(theirs).toMatchObject({ name: 'second copy', session_id: otherSession.id, error: 'only here', status: 'error' });
    });

    test('a dotted order that is not segments of start and id ending with the run, an end before the start and negative tokens are refused', async () => {
      const refusedOrder = await send('POST', '/runs/batch', { post: [run({ id: id(8), parent_run_id: id(5), dotted_order: 'garbage.more' })] });
      expect(refusedOrder.status).toBe(400);
      expect(String(refusedOrder.body.detail)).toContain('dotted_order must be segments of <start>Z<run id>');
      const backwards = await send('POST', '/runs/batch', { post: [run({ id: id(9), end_time: '2024-01-05T00:00:00Z' })] });
      expect(backwards).toEqual({ status: 400, body: { detail: `Run ${id(9)}: end_time is before start_time` } });
      expect((await send('POST', '/runs/batch', { post: [run({ id: id(10), total_tokens: -5 })] })).status).toBe(422);
      for (const n of [8, 9, 10]) expect((await send('GET', `/runs/${id(n)}`)).status).toBe(404);
    });
  });
});
