/**
 * The export constructs' props as a JavaScript app or a Terraform template could get them wrong: filters holding
 * template syntax, tokens, characters Terraform normalises or hand-built expressions; props of the wrong kind; ranges
 * and options the platform refuses; an ExportBucket's key used elsewhere; SSE-KMS buckets and IAM user names.
 */
import { TerraformVariable, type TerraformStack } from 'cdktf';
import { parseFilter } from '../../lib/api/filter';
import { Filter } from '../../lib/constructs';
import { Duration } from '../../lib/constructs/duration';
import { ExportBucket } from '../../lib/constructs/export-bucket';
import { DestinationCredentials, DestinationTarget, ExportDestination } from '../../lib/constructs/export-destination';
import { oneOff, scheduled } from './support/exports';
import { exportStack, onlyResource, providerStack, resourcesOf, synthesized, violationsOf, warningsOf } from './support/synth';

const filterOf = (stack: TerraformStack): unknown => onlyResource(synthesized(stack), 'agentplatform_bulk_export').filter;

describe('export filters in the synthesized JSON', () => {
  test('the ${ and %{ of a filter are written with \\u escapes, which Terraform leaves alone, so the platform gets the text as written', () => {
    const search = scheduled({ filter: Filter.search('cost: ${HOME}') });
    expect(filterOf(search)).toBe('search("cost: \\u0024{HOME}")');
    expect(parseFilter(filterOf(search) as string)).toEqual(parseFilter(Filter.search('cost: ${HOME}').toString()));
    expect(warningsOf(search.node.findChild('Daily'))).toEqual([expect.stringContaining('filter holds "${" or "%{"')]);
    expect(filterOf(scheduled({ filter: Filter.like('name', '%{a}%') }))).toBe('like(name, "\\u0025{a}%")');
    const plain = scheduled({ filter: 'search("100% $5")' });
    expect(filterOf(plain)).toBe('search("100% $5")');
    expect(warningsOf(plain.node.findChild('Daily'))).toEqual([]);
  });

  test('a string token in a raw filter stays a reference, the literal text before and after it escaped', () => {
    const stack = providerStack();
    const name = new TerraformVariable(stack, 'name', { type: 'string' });
    scheduled({ filter: `and(search("\${x"), eq(name, "${name.stringValue}"), search("\${y}"))` }, stack);
    expect(filterOf(stack)).toBe('and(search("\\u0024{x"), eq(name, "${var.name}"), search("\\u0024{y}"))');
  });

  test('a $ just before a string token stays text, and the token a reference', () => {
    const stack = providerStack();
    const price = new TerraformVariable(stack, 'price', { type: 'string' });
    scheduled({ filter: `eq(name, "$${price.stringValue}")` }, stack);
    expect(filterOf(stack)).toBe('eq(name, "\\u0024${var.price}")');
  });

  test('a number token written into a raw filter passes synth (the provider checks it at plan), on any field type', () => {
    const stack = providerStack();
    const min = new TerraformVariable(stack, 'min', { type: 'number' });
    scheduled({ filter: `and(gt(total_tokens, ${min.numberValue}), gt(total_cost, ${min.numberValue}))` }, stack);
    expect(filterOf(stack)).toBe('and(gt(total_tokens, ${var.min}), gt(total_cost, ${var.min}))');
  });

  test('a builder given a token says how to write such a filter', () => {
    const stack = providerStack();
    const min = new TerraformVariable(stack, 'min', { type: 'number' });
    const id = new TerraformVariable(stack, 'id', { type: 'string' });
    expect(() => Filter.gt('total_tokens', min.numberValue)).toThrow(/Filter\.gt\(\) takes values known at synth.*gt\(total_tokens, \$\{minTokens\.numberValue\}\)/s);
    expect(() => Filter.eq('trace_id', id.stringValue)).toThrow('Filter.eq() takes values known at synth');
    expect(() => Filter.in('total_tokens', [1, min.numberValue])).toThrow('Filter.in() takes values known at synth');
    // literal values build as before
    expect(Filter.gt('total_tokens', 5).toString()).toBe('gt(total_tokens, 5)');
  });

  test('a filter not in Unicode NFC is written with \\u escapes, which Terraform leaves alone and which parse back the same', () => {
    const decomposed = 'Cafe\u0301';
    const written = filterOf(scheduled({ filter: Filter.eq('name', decomposed) })) as string;
    expect(written).toBe('eq(name, "Cafe\\u0301")');
    expect(parseFilter(written)).toEqual(parseFilter(`eq(name, "${decomposed}")`));
    // NFC text (the usual case) is written as it is
    expect(filterOf(scheduled({ filter: Filter.eq('name', 'Café 東京') }))).toBe('eq(name, "Café 東京")');
    const stack = scheduled({ filter: Filter.eq('name', decomposed) });
    expect(warningsOf(stack.node.findChild('Daily'))).toEqual([expect.stringContaining('not in Unicode NFC')]);
    // the provider takes the escapes as the NFC text an earlier version wrote: that export stays
    expect(warningsOf(stack.node.findChild('Daily'))).toEqual([expect.stringContaining('made from the NFC form: it is kept as it is')]);
  });

  test('a hand-built expression (as earlier versions took) is checked at synth like a string', () => {
    // of function-style operators, so sent; what this library does not know of it is warned of
    const badValue = { op: 'gt', field: 'total_tokens', value: 'lots' } as unknown as Filter;
    expect(warningsOf(scheduled({ filter: badValue }).node.findChild('Daily'))).toEqual([expect.stringContaining('filter: names what this library does not know')]);
    const unknownField = { op: 'eq', field: 'nope', value: 1 } as unknown as Filter;
    expect(warningsOf(scheduled({ filter: unknownField }).node.findChild('Daily'))).toEqual([expect.stringContaining('unknown field "nope"')]);
    const noExpression = { op: 'and' } as unknown as Filter;
    expect(violationsOf(() => scheduled({ filter: noExpression }))).toEqual([{ prop: 'filter', message: expect.stringContaining('neither a filter expression') }]);
  });

  test('an invalid Date fails as the parser fails for a bad timestamp', () => {
    expect(() => Filter.gte('start_time', new Date('x'))).toThrow(expect.objectContaining({ name: 'FilterSyntaxError' }));
  });
});

describe('props of the wrong kind (apps in JavaScript)', () => {
  const wrong = <T>(value: unknown): T => value as T;

  test('each names the prop and the kind it takes', () => {
    expect(violationsOf(() => scheduled({ every: wrong(24) }))).toEqual([{ prop: 'every', message: expect.stringContaining('must be a Duration') }]);
    expect(violationsOf(() => scheduled({ fields: wrong('id') }))).toEqual([{ prop: 'fields', message: expect.stringContaining('must be a list') }]);
    expect(violationsOf(() => scheduled({ cancelSpawnedOnDestroy: wrong('yes') }))).toEqual([
      { prop: 'cancelSpawnedOnDestroy', message: 'must be true or false; got string "yes".' },
    ]);
    expect(violationsOf(() => oneOff({ waitForCompletion: true, timeout: wrong(60) }))).toEqual([{ prop: 'timeout', message: expect.stringContaining('must be a Duration') }]);
  });
});

describe('BulkExport ranges and options the platform refuses', () => {
  test('a range of more than 1000 UTC days is warned of (the local platform\'s limit; the spec states none)', () => {
    const tooLong = oneOff({ start: '2020-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z' });
    expect(warningsOf(tooLong.node.findChild('Backfill'))).toEqual([
      expect.stringContaining('covers 1827 UTC days, an export run each; the platform may refuse a range this long (the local platform takes at most 1000)'),
    ]);
    expect(onlyResource(synthesized(tooLong), 'agentplatform_bulk_export').end_time).toBe('2025-01-01T00:00:00Z');
    expect(warningsOf(oneOff({ start: '2022-01-01T00:00:00Z', end: '2024-09-27T00:00:00Z' }).node.findChild('Backfill'))).toEqual([]);
  });

  test('a timeout without waitForCompletion is warned of (it bounds nothing)', () => {
    const unused = oneOff({ timeout: Duration.hours(2) });
    expect(warningsOf(unused.node.findChild('Backfill'))).toEqual([expect.stringContaining('timeout bounds the wait for completion, and nothing waits')]);
    const stack = providerStack();
    const wait = new TerraformVariable(stack, 'wait', { type: 'bool' });
    oneOff({ timeout: Duration.hours(2), waitForCompletion: wait.booleanValue as unknown as boolean }, stack);
    expect(warningsOf(stack.node.findChild('Backfill'))).toEqual([]);
  });
});

describe("an ExportBucket's access key", () => {
  const keyOf = (stack: TerraformStack) => ExportBucket.fromBucketName(stack, 'Traces', 'acme-traces', { prefix: 'agent-traces', region: 'eu-west-1' }).withAccessKey();
  /** The violations of a destination at `bucketName`/`prefix` given the bucket's access key. */
  const violationsWithKey = (bucketName: string, prefix: string) => {
    const stack = exportStack();
    const credentials = DestinationCredentials.fromExportAccessKey(keyOf(stack));
    const target = DestinationTarget.s3({ bucketName, prefix, region: 'eu-west-1', credentials });
    return violationsOf(() => new ExportDestination(stack, 'Destination', { displayName: 'traces', target }));
  };

  test('is refused on another bucket or prefix than its own, which it may not write', () => {
    for (const [bucketName, prefix] of [
      ['other-bucket', 'agent-traces'],
      ['acme-traces', 'elsewhere'],
    ]) {
      expect(violationsWithKey(bucketName!, prefix!)).toEqual([
        { prop: 'target.credentials', message: expect.stringContaining('may write only under "acme-traces/agent-traces/"') },
      ]);
    }
  });

  test('is taken on its own bucket, at its prefix (written with slashes around) or under it', () => {
    const stack = exportStack();
    const credentials = DestinationCredentials.fromExportAccessKey(keyOf(stack));
    for (const [id, prefix] of [
      ['Same', '/agent-traces/'],
      ['Prod', 'agent-traces/prod'],
      ['Staging', 'agent-traces/staging'],
    ]) {
      const target = DestinationTarget.s3({ bucketName: 'acme-traces', prefix, region: 'eu-west-1', credentials });
      expect(() => new ExportDestination(stack, id!, { displayName: id!, target })).not.toThrow();
    }
    // a key of the whole bucket writes anywhere in it; a prefix that only starts alike is another prefix
    const whole = exportStack();
    const anywhere = DestinationCredentials.fromExportAccessKey(ExportBucket.fromBucketName(whole, 'Traces', 'acme-traces', { prefix: '' }).withAccessKey());
    expect(() => new ExportDestination(whole, 'D', { displayName: 'd', target: DestinationTarget.s3({ bucketName: 'acme-traces', prefix: 'team-a', region: 'eu-west-1', credentials: anywhere }) })).not.toThrow();
    const alike = exportStack();
    const target = DestinationTarget.s3({ bucketName: 'acme-traces', prefix: 'agent-traces-old', region: 'eu-west-1', credentials: DestinationCredentials.fromExportAccessKey(keyOf(alike)) });
    expect(violationsOf(() => new ExportDestination(alike, 'D', { displayName: 'd', target })).map((v) => v.prop)).toEqual(['target.credentials']);
  });

  test("is refused under its prefix's tmp/, where it may delete objects: the exported files would be deletable", () => {
    for (const [prefix, tmp] of [
      ['agent-traces/tmp', 'agent-traces/tmp/'],
      ['agent-traces/tmp/prod', 'agent-traces/tmp/'],
    ]) {
      expect(violationsWithKey('acme-traces', prefix!)).toEqual([
        { prop: 'target.prefix', message: expect.stringContaining(`is under "${tmp}", where an ExportBucket's access key may delete objects`) },
      ]);
    }
    // a key of the whole bucket deletes under tmp/; a prefix that only starts alike is another prefix
    const whole = exportStack();
    const anywhere = DestinationCredentials.fromExportAccessKey(ExportBucket.fromBucketName(whole, 'Traces', 'acme-traces', { prefix: '' }).withAccessKey());
    const atTmp = DestinationTarget.s3({ bucketName: 'acme-traces', prefix: 'tmp', region: 'eu-west-1', credentials: anywhere });
    expect(violationsOf(() => new ExportDestination(whole, 'D', { displayName: 'd', target: atTmp })).map((v) => v.prop)).toEqual(['target.prefix']);
    const alike = exportStack();
    const target = DestinationTarget.s3({ bucketName: 'acme-traces', prefix: 'agent-traces/tmpfiles', region: 'eu-west-1', credentials: DestinationCredentials.fromExportAccessKey(keyOf(alike)) });
    expect(() => new ExportDestination(alike, 'D', { displayName: 'd', target })).not.toThrow();
  });

  test('takes an IAM user name, for a stack deployed more than once into one account', () => {
    const stack = exportStack();
    const bucket = ExportBucket.fromBucketName(stack, 'Traces', 'acme-traces', { region: 'eu-west-1' });
    bucket.withAccessKey({ userName: 'traces-writer-staging' });
    expect(Object.values(resourcesOf(synthesized(stack), 'aws_iam_user'))).toEqual([expect.objectContaining({ name: 'traces-writer-staging' })]);
    expect(() => bucket.withAccessKey({ userName: 'another' })).toThrow('was already called with other options');
    const other = ExportBucket.fromBucketName(exportStack(), 'Traces', 'acme-traces');
    expect(violationsOf(() => other.withAccessKey({ userName: 'has space' }))).toEqual([{ prop: 'withAccessKey.userName', message: expect.stringContaining('IAM user name') }]);
  });
});

describe('ExportBucket names and keys', () => {
  test.each(['xn--abc', 'sthree-traces', 'my-bucket-s3alias', 'traces--ol-s3', 'traces.mrap', 'traces--x-s3'])(
    'the name %s, kept by S3 for its own kinds of bucket, is refused',
    (name) => {
      expect(violationsOf(() => ExportBucket.fromBucketName(exportStack(), 'Traces', name))).toEqual([{ prop: 'bucketName', message: expect.stringContaining('keeps for itself') }]);
    },
  );

  test('a bucket encrypted with SSE-KMS: grants may use its key, and nothing more', () => {
    const stack = exportStack();
    const kmsKeyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    ExportBucket.fromBucketName(stack, 'Traces', 'acme-traces', { kmsKeyArn }).withAccessKey();
    const policy = JSON.parse(onlyResource(synthesized(stack), 'aws_iam_user_policy').policy as string) as { Statement: { Action: string[]; Resource: string[] }[] };
    // through S3 only: the keys cannot call KMS with it themselves
    expect(policy.Statement).toContainEqual(
      expect.objectContaining({ Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: [kmsKeyArn], Condition: { StringLike: { 'kms:ViaService': 's3.*' } } }),
    );
    expect(policy.Statement.flatMap((s) => s.Action).filter((a) => a.startsWith('kms:'))).toHaveLength(2);
    for (const wrong of ['my-key', 'arn:aws:kms:eu-west-1:123456789012:alias/traces']) {
      expect(violationsOf(() => ExportBucket.fromBucketName(exportStack(), 'Traces', 'acme-traces', { kmsKeyArn: wrong }))).toEqual([
        { prop: 'kmsKeyArn', message: expect.stringContaining('ARN of a KMS key') },
      ]);
    }
  });
});

describe('ExportDestination props', () => {
  const credentials = (stack: TerraformStack) =>
    DestinationCredentials.fromValues({ accessKeyId: 'AKIA', secretAccessKey: new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true }).stringValue });

  test('timeout bounds creating the destination and rotating its keys', () => {
    const stack = providerStack();
    const target = DestinationTarget.s3({ bucketName: 'traces', endpointUrl: 'https://s3.example.com', credentials: credentials(stack) });
    new ExportDestination(stack, 'Destination', { displayName: 'traces', target, timeout: Duration.minutes(10) });
    expect(onlyResource(synthesized(stack), 'agentplatform_export_destination').timeouts).toEqual({ create: '10m', update: '10m' });
  });

  test('a non-boolean includeBucketInPrefix is refused; a prefix with "//" is warned of', () => {
    const stack = providerStack();
    const settings = { bucketName: 'traces', endpointUrl: 'https://s3.example.com', credentials: credentials(stack) };
    const target = DestinationTarget.s3({ ...settings, includeBucketInPrefix: 'no' as unknown as boolean });
    expect(violationsOf(() => new ExportDestination(stack, 'Destination', { displayName: 'traces', target }))).toEqual([
      { prop: 'target.includeBucketInPrefix', message: 'must be true or false; got string "no".' },
    ]);
    const slashes = new ExportDestination(stack, 'Slashes', { displayName: 'traces', target: DestinationTarget.s3({ ...settings, prefix: 'a//b' }) });
    expect(warningsOf(slashes)).toEqual([expect.stringContaining('target.prefix: holds "//"')]);
  });
});
