/**
 * Writes the provider's documentation in the Terraform registry's layout from the schemas themselves:
 * `docs/provider.md`, `docs/resources/<name>.md`, `docs/data-sources/<name>.md`. The attribute tables come from the
 * schema definitions, the examples, behaviour and import notes from each family's doc pages (`lib/provider/resources/<name>/docs.ts`),
 * the provider page's behaviour from `lib/provider/provider-docs.ts` and its other sections from below. A test fails when the files drift from this.
 * Run: npm run build && node dist/scripts/generate-provider-docs.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROVIDER_SOURCE, PROVIDER_TYPE_NAME, packageRoot } from '../lib/provider/constants';
import { renderDocPage, type DocPage, type FamilyDocPages } from '../lib/provider/framework/docs';
import { PROVIDER_ENV, providerSchema } from '../lib/provider/provider-config';
import { PROVIDER_BEHAVIOUR } from '../lib/provider/provider-docs';
import { registry } from '../lib/provider/registry';
import { ASSISTANT_DOC_PAGES } from '../lib/provider/resources/assistant/docs';
import { EXPORT_DOC_PAGES } from '../lib/provider/resources/bulk-export/docs';
import { CRON_DOC_PAGES } from '../lib/provider/resources/cron/docs';
import { DEPLOYMENT_DOC_PAGES } from '../lib/provider/resources/deployment/docs';
import { DESTINATION_DOC_PAGES } from '../lib/provider/resources/export-destination/docs';
import { TRACING_PROJECT_DATA_SOURCE_DOC_PAGES, TRACING_PROJECT_DOC_PAGES } from '../lib/provider/resources/tracing-project/docs';
import { INSTALLATION_SECTION } from './provider-docs-installation';

/** One documentation file: its path from the package root and its content. */
export interface DocFile {
  readonly path: string;
  readonly content: string;
}

const PROVIDER_EXAMPLE = `
terraform {
  required_version = ">= 1.11"
  required_providers {
    agentplatform = { source = "${PROVIDER_SOURCE}" }
  }
}

# The API key comes from AGENTPLATFORM_API_KEY; never write it into a configuration.
provider "agentplatform" {
  control_plane_url = "http://127.0.0.1:8123" # the local platform (agentplatform-local)
  tracing_url       = "http://127.0.0.1:8123" # the same platform: tracing projects, export destinations and bulk exports
}
`;

const PROVIDER_SECTIONS = `## Environment variables

Each setting left out of the provider block is read from the environment:

| Variable | Setting |
|---|---|
| \`${PROVIDER_ENV.apiKey}\` | \`api_key\` |
| \`${PROVIDER_ENV.tenantId}\` | \`tenant_id\` |
| \`${PROVIDER_ENV.controlPlaneUrl}\` | \`control_plane_url\` |
| \`${PROVIDER_ENV.tracingUrl}\` | \`tracing_url\` |

A plan without an API key stops with an error on \`api_key\` naming the variable.

## What the provider refuses, and what it sends

The provider serves the real platform, and refuses an argument only by a rule of the platform's specification (each
such check cites its rule in the code), or to keep a secret out of plan and state (a user name or password in a URL, found however the rest of the URL is
written; no message quotes one). What the specification does not state, but a platform may refuse (the local
platform's own rules: a deployment name's form, secret names and counts, replicas or memory that are not whole
numbers, a URL that is not http(s), a filter operator or field the provider does not know, a
schedule with many intervals due at once, an export range over 1000 days, an end in the platform's future), is a
warning at plan that says so, and the apply goes ahead.

An argument the configuration leaves out is not sent: the platform applies its own default, and the provider reads it
after apply (\`deployment_type\`, \`build_on_push\`, \`format_version\`, \`include_bucket_in_prefix\` are "known after
apply" until then). Taking one out of the configuration keeps the value the state holds, with no change planned.

## Lost answers

A create whose answer is lost (a gateway's 502, a connection reset, a timeout) may have acted. Every create carries an
\`Idempotency-Key\` derived from its settings, and the provider finds out what it made before it goes on, so that
applying again neither fails on the object nor makes a second one: see [convergence.md](convergence.md).

${INSTALLATION_SECTION}
## Using it with the local platform

\`\`\`sh
npm run local -- --port 8123              # in a clone of this repository; prints the URL and a dev API key
npm run local -- s3 --port 4568           # export destinations need an S3 server: this one, or any other
export ${PROVIDER_ENV.controlPlaneUrl}=http://127.0.0.1:8123
export ${PROVIDER_ENV.tracingUrl}=http://127.0.0.1:8123   # tracing projects, export destinations and bulk exports
export ${PROVIDER_ENV.apiKey}=lp_...        # the dev api key line
terraform apply
\`\`\`

\`examples/hcl/deployment\` and \`examples/hcl/exports\` are complete configurations to try. A bulk export names a
tracing project by its id: a deployment's runs are traced into the project named after the deployment
(\`GET /api/v1/sessions?name=<deployment name>\` once it has run), \`POST /api/v1/sessions\` \`{"name": "..."}\` makes
one, and \`npm run local -- generate-runs --project <name> ...\` fills one with synthetic runs
([bulk-export.md](bulk-export.md)).

## Reading the platform's answers

The provider reads the platform's answers tolerantly ([api-clients.md](api-clients.md#reading-answers-tolerantly)),
and turns them into state so that an apply never ends in "Provider produced inconsistent result after apply" and a
refresh never shows a change that is none:

- a field an answer leaves out keeps the value of the plan (create, update) or of the prior state (refresh); with
  neither (after an import) it is null, as it is in a data source;
- a value the platform writes otherwise than the configuration keeps the configured (or prior) form when both mean
  the same: a URL with or without its trailing slash or a default port, its scheme or host in another case
  (\`repo_url\`, \`custom_url\`, \`url\`, \`endpoint_url\`), an instant in another notation (a bulk export's
  \`start_time\`, \`end_time\`), a tracing project id (a UUID in the spec) in another case (\`session_id\`; a
  \`destination_id\` is a plain string in the spec, compared as written), a filter spaced otherwise,
  \`export_fields\` in another order, a number written as a string (\`"0.5"\`); a change of the configuration between
  two such forms never replaces the resource;
- a status or kind the provider does not know is kept in state as the platform names it (\`deployment_type = "dev_free"\`,
  \`revision_status\`, a bulk export's \`status\`); a wait treats an unknown status as not final, and names it as the
  last status seen when its time runs out; a deployment in an unknown status is not taken for one being deleted
  (\`AWAITING_DELETE\` and \`AWAITING_FINAL_DELETE\` are).

\`test/provider/reshaped-answers.test.ts\` runs a deployment, a destination and an export through create, plan,
update, import and destroy behind a proxy that reshapes every answer so.
`;

/** Examples and import notes of each resource and data source, by type name (each family keeps its own). */
const PAGES: FamilyDocPages = { ...DEPLOYMENT_DOC_PAGES, ...DESTINATION_DOC_PAGES, ...EXPORT_DOC_PAGES, ...ASSISTANT_DOC_PAGES, ...CRON_DOC_PAGES, ...TRACING_PROJECT_DOC_PAGES };

/** The pages of data sources that share their type name with a resource. */
const DATA_SOURCE_PAGES: FamilyDocPages = { ...TRACING_PROJECT_DATA_SOURCE_DOC_PAGES };

const fileName = (typeName: string): string => typeName.slice(`${PROVIDER_TYPE_NAME}_`.length);

function page(kind: 'resource' | 'data-source', typeName: string, schema: DocPage['schema']): DocFile {
  const extra = (kind === 'data-source' ? DATA_SOURCE_PAGES[typeName] : undefined) ?? PAGES[typeName];
  if (!extra) throw new Error(`${typeName} has no documentation page: add its examples to the doc pages of its family (e.g. deployment/docs.ts)`);
  const folder = kind === 'resource' ? 'resources' : 'data-sources';
  return { path: `docs/${folder}/${fileName(typeName)}.md`, content: renderDocPage({ kind, typeName, schema, ...extra }) };
}

/** Every documentation file of the provider, rendered from the current schemas. */
export function providerDocFiles(): DocFile[] {
  const provider = renderDocPage({ kind: 'provider', typeName: PROVIDER_TYPE_NAME, schema: providerSchema, examples: [PROVIDER_EXAMPLE], behaviour: PROVIDER_BEHAVIOUR });
  return [
    { path: 'docs/provider.md', content: `${provider}\n${PROVIDER_SECTIONS}` },
    ...Object.entries(registry.resources).map(([typeName, load]) => page('resource', typeName, load().schema)),
    ...Object.entries(registry.dataSources).map(([typeName, load]) => page('data-source', typeName, load().schema)),
  ];
}

/** The HCL examples of every page, for checking them with `terraform validate`. */
export function providerDocExamples(): string[] {
  return [PROVIDER_EXAMPLE, ...[...Object.values(PAGES), ...Object.values(DATA_SOURCE_PAGES)].flatMap((p) => p.examples ?? [])];
}

if (require.main === module) {
  const root = packageRoot();
  for (const file of providerDocFiles()) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.content);
    console.log(`wrote ${file.path}`);
  }
}
