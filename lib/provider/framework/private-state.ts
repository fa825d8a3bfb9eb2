/**
 * A resource instance's private state: data the provider keeps beside the state for itself. Terraform stores the
 * bytes with the instance, hands them back on every read, plan and apply, and never shows them in a plan or to the
 * user's configuration. We keep a small JSON object there (as terraform-plugin-sdk does), for facts that help the
 * provider but are not attributes, such as how long the last revision of a deployment took.
 *
 * Nothing secret belongs here: the state file holds these bytes in plain text, base64-encoded.
 */

/** A JSON value kept in private state. */
export type PrivateValue = string | number | boolean | null | PrivateValue[] | { [key: string]: PrivateValue };

/** The private state of one resource instance, read from terraform's bytes and written back after a handler ran. */
export class PrivateState {
  private constructor(private readonly data: Record<string, PrivateValue>) {}

  /** Reads terraform's bytes; empty, missing or unreadable bytes (another provider version's) give an empty state. */
  static decode(bytes: Uint8Array | undefined | null): PrivateState {
    if (!bytes || bytes.length === 0) return new PrivateState({});
    try {
      const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
      return new PrivateState(parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, PrivateValue>) : {});
    } catch {
      return new PrivateState({});
    }
  }

  /** The value under `key`, if any. */
  get(key: string): PrivateValue | undefined {
    return Object.prototype.hasOwnProperty.call(this.data, key) ? this.data[key] : undefined;
  }

  /** Sets (or, with undefined, removes) the value under `key`. */
  set(key: string, value: PrivateValue | undefined): void {
    if (value === undefined) delete this.data[key];
    else this.data[key] = value;
  }

  /** The bytes to hand back to terraform: empty when nothing is kept. */
  encode(): Uint8Array {
    return Object.keys(this.data).length === 0 ? new Uint8Array(0) : Buffer.from(JSON.stringify(this.data), 'utf8');
  }
}
