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

/** The longest run of `secret`'s characters found in `text` (0 when none), whatever its place in the secret. */
function longestPiece(secret: string, text: string): number {
  let best = 0;
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= secret.length; i++) {
    const row = new Array<number>(text.length + 1).fill(0);
    for (let j = 1; j <= text.length; j++) if (secret[i - 1] === text[j - 1]) best = Math.max(best, (row[j] = previous[j - 1] + 1));
    previous = row;
  }
  return best;
}

/** An STS-like session token: 600 characters of Base64 (real ones run from about 400 to over 1,000). */
const TOKEN = `IQoJb3JpZ2luX2VjE${Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7919 + 13) % 251)).toString('base64')}`.slice(0, 600);

describe('a long secret', () => {
  const redactor = new SecretRedactor([TOKEN]);

  it.each([
    ['cut to its first 300 characters', `Backend rejected session ${TOKEN.slice(0, 300)}`],
    ['cut to its first 20 characters', `Backend rejected session ${TOKEN.slice(0, 20)}…`],
    ['only its middle', `... ${TOKEN.slice(250, 330)} ...`],
    ['only its last 17 characters', `...${TOKEN.slice(-17)}`],
    ['a piece in capitals', `SESSION ${TOKEN.slice(100, 150).toUpperCase()}`],
    ['a piece URL-encoded', `GET /?X-Amz-Security-Token=${encodeURIComponent(TOKEN.slice(0, 200))}`],
    ['a piece JSON-escaped then HTML-escaped', `<pre>${JSON.stringify({ t: TOKEN.slice(40, 120) }).replace(/"/g, '&quot;')}</pre>`],
    ['whole, then cut inside an escape', `{"token":"${TOKEN.slice(0, 90).replace(/\//g, '\\/')}\\u00`],
  ])('%s: no piece of 16 characters is left', (_, text) => {
    const redacted = redactor.redact(text);
    expect(redacted).toContain(REDACTED);
    expect(longestPiece(TOKEN.toLowerCase(), redacted.toLowerCase())).toBeLessThan(16);
    expect(longestPiece(TOKEN, decodeURIComponent(redacted.replace(/&quot;|\\\//g, '')))).toBeLessThan(16);
  });

  it('only the piece is replaced: the text around it is kept as it was', () => {
    expect(redactor.redact(`Backend rejected session ${TOKEN.slice(0, 300)} (request 42).`)).toBe(`Backend rejected session ${REDACTED} (request 42).`);
    expect(redactor.redact(`a=${TOKEN.slice(10, 40)}&b=${TOKEN.slice(400, 430)}`)).toBe(`a=${REDACTED}&b=${REDACTED}`);
  });

  it('fewer characters in a row than that, or a run of one repeated character, are not taken for it', () => {
    // (a piece between characters that cannot extend it: a space matches a + of the token, as form encoding writes it)
    const at = [...TOKEN].findIndex((_, i) => i > 0 && !/[+/]/.test(TOKEN[i - 1] + TOKEN[i + 15]));
    expect(redactor.redact(`piece ${TOKEN.slice(at, at + 15)} alone`)).toBe(`piece ${TOKEN.slice(at, at + 15)} alone`);
    const padded = new SecretRedactor([`${'='.repeat(20)}${TOKEN.slice(0, 40)}`]);
    expect(padded.redact(`ruler ${'='.repeat(40)} ruler`)).toBe(`ruler ${'='.repeat(40)} ruler`);
  });

  it('is found in linear time: a long text full of near misses and escapes takes well under seconds', () => {
    const nearMisses = Array.from({ length: 20_000 }, (_, i) => `${TOKEN.slice(i % 500, (i % 500) + 15)}~%2F&amp;\\u0041+~`).join('~');
    const started = Date.now();
    const redacted = redactor.redact(`${nearMisses} ${TOKEN}`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(redacted.endsWith(` ${REDACTED}`)).toBe(true);
    expect(redacted.length).toBe(nearMisses.length + 1 + REDACTED.length);
  });
});

describe('a secret written back in other escapes', () => {
  const secret = `Tr0ub4dor&3'x<y>z"q/w+v`;
  const redactor = new SecretRedactor([secret]);
  const html = (text: string, apostrophe: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, apostrophe);

  const json = (text: string) => JSON.stringify(text).slice(1, -1);

  it.each([
    ["HTML with hexadecimal references (Python's html.escape)", html(secret, '&#x27;')],
    ['HTML with upper-case hexadecimal references', html(secret, '&#X27;')],
    ['HTML with decimal references only', [...secret].map((c) => `&#${c.charCodeAt(0)};`).join('')],
    ['XML (&apos;)', html(secret, '&apos;')],
    ['URL-encoded with lower-case hex', encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ["URL-encoded as Python's urllib quote does (%27, / kept)", 'Tr0ub4dor%263%27x%3Cy%3Ez%22q/w%2Bv'],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(secret))],
    ['JSON as Go writes it (\\u0026, \\u003c)', json(secret).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e')],
    ['JSON as PHP writes it (\\/)', json(secret).replace(/\//g, '\\/')],
    ['JSON with lower-case \\u escapes of every character', [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['JSON, then HTML-escaped', html(json(secret), '&#39;')],
    ['in capitals', secret.toUpperCase()],
    ['in lower case', secret.toLowerCase()],
  ])('%s: exactly that is replaced', (_, written) => {
    expect(redactor.redact(`detail: "${written}".`)).toBe(`detail: "${REDACTED}".`);
  });

  it('Base64-encoded, in a Basic authorization header: the characters that encode it are replaced', () => {
    const redacted = redactor.redact(`Authorization: Basic ${Buffer.from(`user:${secret}`).toString('base64')}`);
    expect(redacted).toMatch(/^Authorization: Basic .{0,8}\[REDACTED\].{0,4}$/);
    expect(redacted).not.toContain(Buffer.from(secret).toString('base64').slice(4, 16));
  });

  it('the replaced span is exactly the escaped occurrence', () => {
    expect(redactor.redact(`<p title="${html(secret, '&#x27;')}">&amp;</p>`)).toBe(`<p title="${REDACTED}">&amp;</p>`);
    expect(redactor.redact(`{"a":"\\u0026","b":"${JSON.stringify(secret).slice(1, -1).replace(/&/g, '\\u0026')}","c":"%41"}`)).toBe(
      `{"a":"\\u0026","b":"${REDACTED}","c":"%41"}`,
    );
    const emoji = new SecretRedactor(['p\u00e4ss-\u{1F511}-word']);
    expect(emoji.redact(`x=${encodeURIComponent('p\u00e4ss-\u{1F511}-word')}&y=1`)).toBe(`x=${REDACTED}&y=1`);
    expect(emoji.redact('k=p&#228;ss-&#x1F511;-word;')).toBe(`k=${REDACTED};`);
  });

  it('escapes in text without a secret are left as they are', () => {
    const text = 'a &amp; b &#x27;c&#39; %2f %41 \\u0041 \\/ 1+1 &unknown; & % \\';
    expect(redactor.redact(text)).toBe(text);
  });
});
