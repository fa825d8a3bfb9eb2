/**
 * The cty msgpack codec: every type round-trips; numbers stay exact; unknowns (plain and refined) decode; objects
 * always carry every attribute; bytes match what terraform itself sends.
 */
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { fromStateJson, parseExactJson } from '../../lib/provider/cty/json';
import { decodeMsgpack, encodeMsgpack } from '../../lib/provider/cty/msgpack';
import { CtyNumber } from '../../lib/provider/cty/number';
import { cty, typeFromJson, typeToJson, type CtyType } from '../../lib/provider/cty/types';
import { CtyDynamic, UNKNOWN, isWhollyKnown, valueEquals, type CtyValue } from '../../lib/provider/cty/value';

const n = (text: string): CtyNumber => CtyNumber.parse(text);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const roundTrip = (value: CtyValue, type: CtyType): CtyValue => decodeMsgpack(encodeMsgpack(value, type), type);

describe('cty msgpack codec', () => {
  const cases: [string, CtyType, CtyValue][] = [
    ['string', cty.string, 'héllo ✓'],
    ['empty string', cty.string, ''],
    ['bool', cty.bool, false],
    ['small int', cty.number, n('42')],
    ['negative int', cty.number, n('-7')],
    ['int64 max', cty.number, n('9223372036854775807')],
    ['beyond int64', cty.number, n('123456789012345678901234567890')],
    ['exact float64', cty.number, n('2.5')],
    ['decimal without float64', cty.number, n('0.1')],
    ['long decimal', cty.number, n('3.14159265358979323846264338327950288')],
    ['list', cty.list(cty.string), ['a', 'b', 'a']],
    ['empty list', cty.list(cty.number), []],
    ['set', cty.set(cty.number), [n('1'), n('2')]],
    ['map', cty.map(cty.bool), { x: true, y: false }],
    ['object', cty.object({ a: cty.string, b: cty.number }), { a: 'x', b: n('1') }],
    ['tuple', cty.tuple([cty.string, cty.bool]), ['x', true]],
    ['null', cty.string, null],
    ['unknown', cty.number, UNKNOWN],
    ['unknown inside', cty.object({ id: cty.string, tags: cty.list(cty.string) }), { id: UNKNOWN, tags: ['a', UNKNOWN] }],
    [
      'nested list of objects (list nested attribute or block)',
      cty.list(cty.object({ name: cty.string, rules: cty.set(cty.object({ host: cty.string })) })),
      [{ name: 'a', rules: [{ host: 'h' }] }, { name: 'b', rules: [] }],
    ],
    ['map of objects', cty.map(cty.object({ v: cty.number })), { k: { v: n('0.5') } }],
    ['dynamic', cty.dynamic, new CtyDynamic(cty.list(cty.string), ['a'])],
  ];

  it.each(cases)('round-trips %s', (_name, type, value) => {
    expect(valueEquals(roundTrip(value, type), value, type)).toBe(true);
  });

  it('writes numbers the way cty does: ints as ints, exact floats as float64, the rest as decimal strings', () => {
    expect(decode(encodeMsgpack(n('42'), cty.number))).toBe(42);
    expect(decode(encodeMsgpack(n('9223372036854775807'), cty.number), { useBigInt64: true })).toBe(9223372036854775807n);
    expect(decode(encodeMsgpack(n('2.5'), cty.number))).toBe(2.5);
    expect(decode(encodeMsgpack(n('0.1'), cty.number))).toBe('0.1');
    expect(decode(encodeMsgpack(n('18446744073709551616'), cty.number))).toBe('18446744073709551616');
  });

  it('reads numbers exactly whichever way terraform sends them', () => {
    expect(decodeMsgpack(encode(7), cty.number)).toEqual(n('7'));
    expect(decodeMsgpack(encode(-(2n ** 63n), { useBigInt64: true }), cty.number)).toEqual(n('-9223372036854775808'));
    expect(decodeMsgpack(encode('0.1'), cty.number)).toEqual(n('0.1'));
    // A float64 means its exact binary value, not its shortest decimal form.
    expect((decodeMsgpack(encode(0.1), cty.number) as CtyNumber).text).toBe('0.1000000000000000055511151231257827021181583404541015625');
  });

  it('writes unknown as extension 0 and reads refined unknowns (extension 0x0c) and any other extension as unknown', () => {
    expect(hex(encodeMsgpack(UNKNOWN, cty.string))).toBe('d40000');
    const refined = encode(new ExtData(0x0c, encode(new Map([[1, true]]))));
    expect(decodeMsgpack(refined, cty.string)).toBe(UNKNOWN);
    expect(decodeMsgpack(encode(new ExtData(5, new Uint8Array([1, 2]))), cty.number)).toBe(UNKNOWN);
    expect(decodeMsgpack(Buffer.from('d40000', 'hex'), cty.list(cty.string))).toBe(UNKNOWN);
  });

  it('writes every attribute of an object, missing ones as nil, in schema order', () => {
    const type = cty.object({ id: cty.string, name: cty.string, size: cty.number });
    const bytes = encodeMsgpack({ name: 'x' }, type);
    expect(decode(bytes)).toEqual({ id: null, name: 'x', size: null });
    expect(hex(bytes)).toBe(`83a26964c0a46e616d65a178a473697a65c0`);
  });

  it('reads objects missing attributes as nulls', () => {
    expect(decodeMsgpack(encode({ a: 'x' }), cty.object({ a: cty.string, b: cty.bool }))).toEqual({ a: 'x', b: null });
  });

  it('names the path of a value of the wrong type', () => {
    const type = cty.object({ spec: cty.object({ cpu: cty.number }) });
    expect(() => decodeMsgpack(encode({ spec: { cpu: true } }), type)).toThrow('spec.cpu: expected number, got boolean');
    expect(() => encodeMsgpack({ spec: { cpu: 'one' } }, type)).toThrow('spec.cpu: expected number, got string');
  });

  it('encodes dynamic values as [type JSON, value]', () => {
    const [typeBytes, value] = decode(encodeMsgpack(new CtyDynamic(cty.map(cty.number), { a: n('1') }), cty.dynamic)) as [Uint8Array, unknown];
    expect(Buffer.from(typeBytes).toString()).toBe('["map","number"]');
    expect(value).toEqual({ a: 1 });
  });

  it('reads and writes map keys that name object internals as plain keys (__proto__, constructor)', () => {
    const type = cty.map(cty.string);
    const value = Object.fromEntries([['constructor', 'c'], ['toString', 't'], ['a', 'x']]);
    Object.defineProperty(value, '__proto__', { value: 'p', enumerable: true, writable: true, configurable: true });
    // as terraform sends a map: a msgpack map, whatever its keys (the library's own decode refuses this one)
    const bytes = encodeMsgpack(value, type);
    expect(() => decode(bytes)).toThrow('The key __proto__ is not allowed');

    const read = decodeMsgpack(bytes, type) as Record<string, CtyValue>;

    expect(Object.keys(read).sort()).toEqual(['__proto__', 'a', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toBe('p');
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(valueEquals(read, value, type)).toBe(true);
    // inside an object attribute too
    const nested = cty.object({ env: type });
    expect(valueEquals(roundTrip({ env: value }, nested), { env: value }, nested)).toBe(true);
  });

  it('tracks whether values are wholly known', () => {
    expect(isWhollyKnown({ a: ['x', n('1')] })).toBe(true);
    expect(isWhollyKnown({ a: ['x', UNKNOWN] })).toBe(false);
  });
});

describe('cty types', () => {
  it('converts types to and from their JSON form', () => {
    const type = cty.object({ a: cty.list(cty.set(cty.map(cty.number))), b: cty.tuple([cty.bool, cty.dynamic]) });
    const json = typeToJson(type);
    expect(json).toEqual(['object', { a: ['list', ['set', ['map', 'number']]], b: ['tuple', ['bool', 'dynamic']] }]);
    expect(typeFromJson(JSON.parse(JSON.stringify(json)))).toEqual(type);
  });
});

describe('cty values in state JSON', () => {
  it('parses numbers exactly and converts against the type', () => {
    const json = parseExactJson('{"big": 12345678901234567890, "dec": 0.1, "list": [1, 2.5e3], "extra": "dropped", "s": "a\\"b"}');
    const type = cty.object({ big: cty.number, dec: cty.number, list: cty.list(cty.number), s: cty.string, missing: cty.bool });
    expect(fromStateJson(json, type)).toEqual({ big: n('12345678901234567890'), dec: n('0.1'), list: [n('1'), n('2500')], s: 'a"b', missing: null });
  });

  it('reads dynamic values stored as {value, type}', () => {
    const value = fromStateJson(parseExactJson('{"value": ["x"], "type": ["list", "string"]}'), cty.dynamic);
    expect(value).toEqual(new CtyDynamic(cty.list(cty.string), ['x']));
  });

  it('rejects malformed JSON', () => {
    expect(() => parseExactJson('{"a": }')).toThrow(SyntaxError);
    expect(() => parseExactJson('[1, 2] x')).toThrow('trailing characters');
  });
});

describe('CtyNumber', () => {
  it('normalizes decimal text', () => {
    expect(n('1.500').text).toBe('1.5');
    expect(n('-0').text).toBe('0');
    expect(n('1e21').text).toBe('1000000000000000000000');
    expect(n('2.5E-3').text).toBe('0.0025');
    expect(n('007').text).toBe('7');
    expect(() => n('abc')).toThrow(RangeError);
  });

  it('compares exactly, beyond float64 precision', () => {
    expect(n('9007199254740993').compare(n('9007199254740992'))).toBeGreaterThan(0);
    expect(n('0.1').compare(n('0.10000000000000000001'))).toBeLessThan(0);
    expect(n('-2').compare(n('1'))).toBeLessThan(0);
    expect(n('-2').compare(n('-10'))).toBeGreaterThan(0);
    expect(n('100').compare(n('1e2'))).toBe(0);
  });

  it('keeps JavaScript numbers as the decimals they print as', () => {
    expect(CtyNumber.fromNumber(0.1).text).toBe('0.1');
    expect(CtyNumber.fromNumber(1e-7).text).toBe('0.0000001');
    expect(CtyNumber.fromExactDouble(0.5).text).toBe('0.5');
    expect(CtyNumber.fromBigInt(-(2n ** 70n)).text).toBe('-1180591620717411303424');
    expect(() => CtyNumber.fromNumber(Number.NaN)).toThrow(RangeError);
  });
});
