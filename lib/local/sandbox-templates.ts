/**
 * Sandbox templates. Two built-in templates (seeded once per data dir) are visible to every workspace; a workspace
 * adds its own with `POST /v2/sandboxes/templates`, the CLI's `--sandbox-template` or `admin.addSandboxTemplate`.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SandboxTemplateRecord as SandboxTemplate } from '../api/schemas/control-plane';
import type { Clock } from './clock';
import { prepared, type Migration, type PlatformDatabase, type SealedColumn } from './db';
import { HttpError } from './errors';
import type { SecretBox } from './secret-box';

/**
 * A Kubernetes resource quantity, as its grammar defines it: a number (`1`, `1.5`, `.5`, `1.`), then a binary suffix
 * (`Ki` … `Ei`), a decimal one (`n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`) or an exponent (`e3`, `E-2`). The grammar's sign
 * is `+` only: a resource amount is never negative.
 */
const QUANTITY = /^\+?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[eE][+-]?\d+|[numkMGTPE])?$/;
const quantity = z
  .string()
  .regex(QUANTITY, {
    message: 'String should be a Kubernetes quantity of 0 or more: a number with an optional suffix, e.g. 500m, 2, 1.5, 512Mi, 2Gi, 1Pi, 10G or 1e3',
  })
  .nullable()
  .optional();

/** A header name: an HTTP token (RFC 9110), so no spaces, separators or control characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value: visible characters, with spaces and tabs inside only (no CR, LF or other control characters). */
const HEADER_VALUE = /^([^\x00-\x20\x7f]([^\x00-\x08\x0a-\x1f\x7f]*[^\x00-\x20\x7f])?)?$/;

/** How a character is named in a message: printable ones quoted, others by their code. */
const describeCharacter = (c: string): string =>
  c === ' ' ? 'a space' : /[\x21-\x7e]/.test(c) ? JSON.stringify(c) : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The headers a proxy rule injects: each name an HTTP token and each value a valid field value, reported by name. A
 * name that is not a token is not repeated, in the message nor in `loc`: it is often a whole header pasted as a name
 * (`"Authorization: Bearer sk-…"`), secret included; it is named by its place among the rule's headers instead.
 */
const injectHeaders = z
  .record(z.string(), z.unknown())
  .superRefine((headers, ctx) => {
    Object.entries(headers).forEach(([name, value], index) => {
      if (!HEADER_NAME.test(name)) {
        const bad = [...name].findIndex((c) => !HEADER_NAME.test(c));
        const where = bad < 0 ? 'it is empty' : `its character ${bad + 1}, ${describeCharacter([...name][bad])}, is not allowed`;
        ctx.addIssue({
          code: 'custom',
          path: [],
          message:
            `the name of header ${index + 1} is not an HTTP token (${where}; the name is not repeated here, as it may hold a secret): ` +
            "use letters, digits and !#$%&'*+-.^_`|~ only (no spaces or control characters), and put the value in the header's value",
        });
      } else if (typeof value !== 'string') {
        ctx.addIssue({ code: 'invalid_type', expected: 'string', input: value, path: [name] });
      } else if (!HEADER_VALUE.test(value)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `the value of header ${name} holds a CR, LF or other control character, or begins or ends with a space: send it on one line, trimmed`,
        });
      }
    });
  }) as unknown as z.ZodType<Record<string, string>, Record<string, string>>;

/** The body of a new template: the SandboxTemplate without server fields; lists default to empty. */
export const SandboxTemplateInput = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
  image: z.string().min(1),
  resources: z.strictObject({ cpu: quantity, memory: quantity, storage: quantity }).default({}),
  volume_mounts: z
    .array(z.strictObject({ volume_name: z.string().min(1), mount_path: z.string().regex(/^\//) }))
    .default([]),
  proxy_config: z
    .strictObject({
      rules: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            match_hosts: z.array(z.string().min(1)),
            inject_headers: injectHeaders.default({}),
            match_paths: z.array(z.string()).default([]),
            enabled: z.boolean().default(true),
          }),
        )
        .default([]),
      no_proxy: z.array(z.string()).default([]),
    })
    .default({ rules: [], no_proxy: [] }),
});
export type SandboxTemplateInput = z.input<typeof SandboxTemplateInput>;

/** The templates every data dir starts with. */
export const BUILT_IN_TEMPLATES: readonly z.output<typeof SandboxTemplateInput>[] = [
  {
    name: 'python-3.12',
    image: 'python:3.12-slim-bookworm',
    resources: { cpu: '1', memory: '2Gi', storage: '10Gi' },
    volume_mounts: [{ volume_name: 'workspace', mount_path: '/workspace' }],
    proxy_config: {
      rules: [
        {
          name: 'github-api',
          match_hosts: ['api.github.com'],
          inject_headers: { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' },
          match_paths: ['/repos/*', '/user'],
          enabled: true,
        },
      ],
      no_proxy: ['localhost', '127.0.0.1', '.svc.cluster.local'],
    },
  },
  {
    name: 'node-22',
    image: 'node:22-bookworm-slim',
    resources: { cpu: '500m', memory: '1Gi', storage: '5Gi' },
    volume_mounts: [
      { volume_name: 'workspace', mount_path: '/workspace' },
      { volume_name: 'npm-cache', mount_path: '/root/.npm' },
    ],
    proxy_config: {
      rules: [
        {
          name: 'npm-registry',
          match_hosts: ['registry.npmjs.org'],
          inject_headers: { 'npm-command': 'install' },
          match_paths: ['/*'],
          enabled: false,
        },
      ],
      no_proxy: ['localhost', '127.0.0.1'],
    },
  },
];

/**
 * What the API shows for the value of every header a proxy rule injects: such headers carry credentials (bearer
 * tokens, API keys), which are sealed at rest and, as every other secret of the platform, never sent back.
 */
export const REDACTED_HEADER_VALUE = '********';

/** The column that holds a template's injected headers, sealed: one map per proxy rule, in the rules' order. */
export const SANDBOX_TEMPLATE_SEALED_COLUMNS: readonly SealedColumn[] = [{ table: 'cp_sandbox_templates', column: 'sealed_headers' }];

export const SANDBOX_TEMPLATE_MIGRATIONS: readonly Migration[] = [
  {
    id: '002-sandbox-templates',
    up: (db) => {
      db.exec(`CREATE TABLE cp_sandbox_templates (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tenant_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX cp_sandbox_templates_name ON cp_sandbox_templates (ifnull(tenant_id, ''), name);`);
      const now = new Date().toISOString();
      const insert = db.prepare(
        'INSERT INTO cp_sandbox_templates (id, tenant_id, name, body, created_at, updated_at) VALUES (?, NULL, ?, ?, ?, ?)',
      );
      for (const template of BUILT_IN_TEMPLATES)
        insert.run(randomUUID(), template.name, JSON.stringify(template), now, now);
    },
  },
  {
    // the headers stay in `body` until the store seals them, once the data dir's key is known (sealPlaintextHeaders)
    id: '003-sandbox-template-sealed-headers',
    up: 'ALTER TABLE cp_sandbox_templates ADD COLUMN sealed_headers TEXT',
  },
];

type StoredTemplate = z.output<typeof SandboxTemplateInput>;

/** `template` with every injected header's value redacted, and its headers apart, one map per rule. */
function splitHeaders(template: StoredTemplate): { shown: StoredTemplate; headers: Record<string, string>[] } {
  const rules = template.proxy_config.rules;
  const redact = (headers: Record<string, string>) => Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED_HEADER_VALUE]));
  return {
    shown: { ...template, proxy_config: { ...template.proxy_config, rules: rules.map((rule) => ({ ...rule, inject_headers: redact(rule.inject_headers) })) } },
    headers: rules.map((rule) => rule.inject_headers),
  };
}

interface TemplateRow {
  id: string;
  body: string;
  created_at: string;
  updated_at: string;
}

const toTemplate = (row: TemplateRow): SandboxTemplate => ({
  id: row.id,
  ...(JSON.parse(row.body) as z.output<typeof SandboxTemplateInput>),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** Reads and adds sandbox templates; the headers their proxy rules inject are sealed with the data dir's key. */
export class SandboxTemplateStore {
  constructor(
    private readonly db: PlatformDatabase,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Seals the injected headers of every template stored before they were sealed (by an earlier version, or seeded by
   * the migrations, which run before the key is known), and redacts them in its body. The old text is overwritten on
   * its pages (secure_delete) and the WAL emptied, so no plaintext copy stays in the files.
   */
  sealPlaintextHeaders(): void {
    const rows = this.db.prepare('SELECT id, body FROM cp_sandbox_templates WHERE sealed_headers IS NULL').all() as { id: string; body: string }[];
    if (rows.length === 0) return;
    const update = this.db.prepare('UPDATE cp_sandbox_templates SET body = ?, sealed_headers = ? WHERE id = ?');
    const secureDelete = this.db.pragma('secure_delete', { simple: true }) as number;
    this.db.pragma('secure_delete = ON');
    try {
      this.db.transaction(() => {
        for (const row of rows) {
          const { shown, headers } = splitHeaders(JSON.parse(row.body) as StoredTemplate);
          update.run(JSON.stringify(shown), this.secrets.encrypt(JSON.stringify(headers)), row.id);
        }
      })();
    } finally {
      this.db.pragma(`secure_delete = ${secureDelete}`);
    }
    if (!this.db.memory) this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** The built-in templates, then the workspace's own, in the order they were added. */
  list(tenantId: string): SandboxTemplate[] {
    const rows = prepared(
      this.db,
      'SELECT * FROM cp_sandbox_templates WHERE tenant_id IS NULL OR tenant_id = ? ORDER BY tenant_id IS NOT NULL, seq',
    ).all(tenantId) as TemplateRow[];
    return rows.map(toTemplate);
  }

  /**
   * Adds a template to a workspace. A name already visible there is a 409, unless `replace` is set and the
   * template is the workspace's own (built-in templates are never replaced).
   */
  add(tenantId: string, input: StoredTemplate, replace = false): SandboxTemplate {
    const now = new Date(this.clock.now()).toISOString();
    const existing = prepared(
      this.db,
      'SELECT id, tenant_id FROM cp_sandbox_templates WHERE (tenant_id IS NULL OR tenant_id = ?) AND name = ?',
    ).get(tenantId, input.name) as { id: string; tenant_id: string | null } | undefined;
    if (existing && (!replace || existing.tenant_id === null)) {
      throw new HttpError(409, `Sandbox template named '${input.name}' already exists (id ${existing.id})`);
    }
    const { shown, headers } = splitHeaders(input);
    const sealed = this.secrets.encrypt(JSON.stringify(headers));
    if (existing) {
      prepared(this.db, 'UPDATE cp_sandbox_templates SET body = ?, sealed_headers = ?, updated_at = ? WHERE id = ?').run(
        JSON.stringify(shown),
        sealed,
        now,
        existing.id,
      );
      return this.get(existing.id);
    }
    const id = randomUUID();
    prepared(
      this.db,
      'INSERT INTO cp_sandbox_templates (id, tenant_id, name, body, sealed_headers, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(id, tenantId, input.name, JSON.stringify(shown), sealed, now, now);
    return this.get(id);
  }

  private get(id: string): SandboxTemplate {
    return toTemplate(prepared(this.db, 'SELECT * FROM cp_sandbox_templates WHERE id = ?').get(id) as TemplateRow);
  }
}
