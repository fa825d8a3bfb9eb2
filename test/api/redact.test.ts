/**
 * The redactor scrubs a secret out of what a server writes back, however the server wrote it: as sent, escaped the
 * ways JSON, Python, URLs and HTML escape text, or cut short.
 */
import { REDACTED, SecretRedactor } from '../../lib/api/redact';

const SECRET = 'SECRET-"Q"-\\ä-12 and\'more';

describe('a secret written back', () => {
  const redactor = new SecretRedactor([SECRET]);

  it.each([
    ['as sent', `body: ${SECRET}.`],
    ['inside a JSON string', `could not process ${JSON.stringify({ value: SECRET })}`],
    ['as JSON with only ASCII (Python json.dumps)', `detail: "SECRET-\\"Q\\"-\\\\\\u00e4-12 and'more"`],
    ['as JSON with upper-case escapes', `detail: "SECRET-\\"Q\\"-\\\\\\u00E4-12 and'more"`],
    ['as a Python repr', `{'value': 'SECRET-"Q"-\\\\ä-12 and\\'more'}`],
    ['URL-encoded', `GET /?key=${encodeURIComponent(SECRET)} failed`],
    ['form-encoded', `body key=${encodeURIComponent(SECRET).replace(/%20/g, '+')}`],
    ['HTML-escaped', '<pre>SECRET-&quot;Q&quot;-\\ä-12 and&#39;more</pre>'],
  ])('%s is redacted', (_, text) => {
    const redacted = redactor.redact(text);
    expect(redacted).toContain(REDACTED);
    expect(redacted).not.toContain('SECRET-');
  });

  it('cut short, it is redacted as long as it keeps at least half of the secret', () => {
    const key = 'sk-live-0123456789abcdefghij';
    const keys = new SecretRedactor([key]);
    expect(keys.redact(`refused '${key.slice(0, 20)}...'`)).toBe(`refused '${REDACTED}...'`);
    expect(keys.redact(`refused ${key.slice(0, 14)}…`)).toBe(`refused ${REDACTED}…`);
    // a few first characters alone give nothing away, and are common to many keys
    expect(keys.redact('keys start with sk-live-0')).toBe('keys start with sk-live-0');
  });

  it('leaves text without the secret as it is', () => {
    expect(redactor.redact('SECRET- is a word; "Q" too')).toBe('SECRET- is a word; "Q" too');
  });
});
