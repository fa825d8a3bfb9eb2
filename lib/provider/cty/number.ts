/**
 * Exact cty numbers. Terraform numbers are arbitrary-precision decimals: `0.1` in a configuration is exactly one
 * tenth, which no float64 is, and integers may exceed 2^53. Keeping every number as a normalized decimal (digits and
 * a power of ten) means values round-trip bit-for-bit and compare exactly, so plans converge.
 */

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_EXPONENT = 100_000;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An exact decimal number: `(-1)^negative × digits × 10^exponent`, with no leading or trailing zero digits. */
export class CtyNumber {
  /** Canonical decimal text without exponent, e.g. `-12.5`, `100`, `0.001`. */
  readonly text: string;

  private constructor(
    private readonly negative: boolean,
    private readonly digits: string,
    private readonly exponent: number,
  ) {
    this.text = render(negative, digits, exponent);
  }

  /** Parses decimal text (`12`, `-0.5`, `1e21`, `2.5E-3`). Throws a RangeError on anything else. */
  static parse(text: string): CtyNumber {
    const m = DECIMAL.exec(text.trim());
    if (!m || (!m[2] && !m[3])) throw new RangeError(`not a number: ${JSON.stringify(text)}`);
    const [, sign, intPart = '', fracPart = '', exp = '0'] = m;
    return CtyNumber.normalized(sign === '-', intPart + fracPart, Number(exp) - fracPart.length);
  }

  /** A JavaScript number as the decimal it prints as (`0.1` → exactly one tenth), the way users wrote it. */
  static fromNumber(n: number): CtyNumber {
    if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
    return CtyNumber.parse(String(n));
  }

  /** A float64 by its exact binary value (how msgpack floats from terraform are meant). */
  static fromExactDouble(n: number): CtyNumber {
    if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
    if (Number.isInteger(n)) return CtyNumber.fromBigInt(BigInt(n));
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, n);
    const high = view.getUint32(0);
    const biased = (high >>> 20) & 0x7ff;
    let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
    if (biased !== 0) mantissa |= 1n << 52n;
    const binaryExponent = (biased === 0 ? 1 : biased) - 1075;
    // A non-integer double has a negative binary exponent: m / 2^k = m·5^k / 10^k.
    const k = -binaryExponent;
    return CtyNumber.normalized(n < 0, (mantissa * 5n ** BigInt(k)).toString(), -k);
  }

  /** An integer. */
  static fromBigInt(n: bigint): CtyNumber {
    return CtyNumber.normalized(n < 0n, (n < 0n ? -n : n).toString(), 0);
  }

  private static normalized(negative: boolean, digits: string, exponent: number): CtyNumber {
    const start = digits.search(/[1-9]/);
    if (start < 0) return new CtyNumber(false, '', 0);
    let end = digits.length;
    while (digits[end - 1] === '0') end--;
    const e = exponent + (digits.length - end);
    if (Math.abs(e) > MAX_EXPONENT) throw new RangeError('number out of supported range');
    return new CtyNumber(negative, digits.slice(start, end), e);
  }

  /** Whether the number has no fractional part. */
  isInteger(): boolean {
    return this.exponent >= 0;
  }

  /** The nearest JavaScript number. */
  toNumber(): number {
    return Number(this.text);
  }

  /** The value as a bigint; only for integers. */
  toBigInt(): bigint {
    if (!this.isInteger()) throw new RangeError(`${this.text} is not an integer`);
    return BigInt(this.text);
  }

  /** The msgpack form cty uses: an int when it fits int64, a float64 when exact, else the decimal string. */
  toMsgpack(): number | bigint | string {
    if (this.isInteger()) {
      const big = this.toBigInt();
      if (big >= INT64_MIN && big <= INT64_MAX) {
        return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
      }
      return this.text;
    }
    const n = this.toNumber();
    return Number.isFinite(n) && CtyNumber.fromExactDouble(n).equals(this) ? n : this.text;
  }

  /** Exact equality. */
  equals(other: CtyNumber): boolean {
    return this.text === other.text;
  }

  /** Exact comparison: negative, zero or positive as `this` is below, equal to or above `other`. */
  compare(other: CtyNumber): number {
    if (this.equals(other)) return 0;
    const sign = this.signum();
    if (sign !== other.signum()) return sign - other.signum();
    return sign * this.compareMagnitude(other);
  }

  private compareMagnitude(other: CtyNumber): number {
    // Order of magnitude first: the position of the most significant digit.
    const ma = this.digits.length + this.exponent;
    const mb = other.digits.length + other.exponent;
    if (ma !== mb) return ma < mb ? -1 : 1;
    const width = Math.max(this.digits.length, other.digits.length);
    const da = this.digits.padEnd(width, '0');
    const db = other.digits.padEnd(width, '0');
    return da < db ? -1 : da > db ? 1 : 0;
  }

  /** -1, 0 or 1. */
  signum(): number {
    return this.digits === '' ? 0 : this.negative ? -1 : 1;
  }

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

function render(negative: boolean, digits: string, exponent: number): string {
  if (digits === '') return '0';
  let body: string;
  if (exponent >= 0) body = digits + '0'.repeat(exponent);
  else if (-exponent >= digits.length) body = `0.${'0'.repeat(-exponent - digits.length)}${digits}`;
  else body = `${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
  return negative ? `-${body}` : body;
}
