/**
 * Attribute paths of diagnostics, the conversion of thrown errors, and durations of the `timeouts` attribute.
 */
import {
  Diagnostics,
  DiagnosticError,
  diagnosticsToProto,
  errorToDiagnostic,
  formatPath,
  parsePath,
} from '../../lib/provider/framework/diagnostics';
import { formatDuration, parseDuration, timeoutMs, timeoutsAttribute } from '../../lib/provider/framework/timeouts';

describe('attribute paths', () => {
  it.each([
    ['resource_spec.min_scale', [{ attribute: 'resource_spec' }, { attribute: 'min_scale' }]],
    ['secrets["API_KEY"]', [{ attribute: 'secrets' }, { key: 'API_KEY' }]],
    ['rules[0].name', [{ attribute: 'rules' }, { index: 0 }, { attribute: 'name' }]],
    ['tags["a \\"quoted\\" key"]', [{ attribute: 'tags' }, { key: 'a "quoted" key' }]],
  ])('parses and formats %s', (text, steps) => {
    expect(parsePath(text)).toEqual(steps);
    expect(formatPath(parsePath(text))).toBe(text);
  });

  it.each(['.a', 'a..b', 'a[x]', 'a[0]b'])('rejects %j', (text) => {
    expect(() => parsePath(text)).toThrow('malformed attribute path');
  });

  it('become tfplugin6 AttributePath steps', () => {
    const d = new Diagnostics().error('Invalid ref', 'Tags cannot build on push.', 'source_config["x"].list[2]').warning('Heads up');
    expect(diagnosticsToProto(d.items)).toEqual([
      {
        severity: 1,
        summary: 'Invalid ref',
        detail: 'Tags cannot build on push.',
        attribute: { steps: [{ attribute_name: 'source_config' }, { element_key_string: 'x' }, { attribute_name: 'list' }, { element_key_int: 2 }] },
      },
      { severity: 2, summary: 'Heads up', detail: '' },
    ]);
    expect(d.hasErrors()).toBe(true);
  });

  it('turns thrown errors into error diagnostics', () => {
    expect(errorToDiagnostic(new DiagnosticError('Timed out', 'after 30m; last status BUILDING', 'timeouts.create'), 'x')).toEqual({
      severity: 'error',
      summary: 'Timed out',
      detail: 'after 30m; last status BUILDING',
      path: [{ attribute: 'timeouts' }, { attribute: 'create' }],
    });
    expect(errorToDiagnostic(new Error('connection refused'), 'Failed to read agentplatform_x')).toEqual({
      severity: 'error',
      summary: 'Failed to read agentplatform_x',
      detail: 'connection refused',
    });
  });
});

describe('durations', () => {
  it.each([
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['2h0m10s', 7_210_000],
    ['0', 0],
    // whole milliseconds, as timers take them (1.1h is 3960000.0000000005 in floating point)
    ['1.1h', 3_960_000],
    ['1.5us', 1],
    // at most what a timer waits: longer would fire at once
    ['600h', 2 ** 31 - 1],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['abc', '10', '5 m', '-1m', '1d', 'm', ''])('rejects %j', (text) => expect(parseDuration(text)).toBeUndefined());

  it('formats milliseconds as users write durations', () => {
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(250)).toBe('250ms');
  });

  it('resolves per-operation timeouts with defaults from code', () => {
    const timeouts = timeoutsAttribute({ create: '30m', update: '30m', delete: '15m' });
    expect(Object.keys(timeouts.attributes)).toEqual(['create', 'update', 'delete']);
    expect(timeoutMs(null, 'create', timeouts)).toBe(1_800_000);
    expect(timeoutMs({ create: '1h', update: null, delete: null }, 'create', timeouts)).toBe(3_600_000);
    expect(timeoutMs({ create: '1h', update: null, delete: null }, 'delete', timeouts)).toBe(900_000);
  });
});
