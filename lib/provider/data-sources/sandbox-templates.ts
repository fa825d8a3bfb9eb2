/**
 * `agentplatform_sandbox_templates`: the sandbox templates of the workspace, every field as the control plane
 * returns it.
 */
import type { SandboxTemplate } from '../../api/schemas/control-plane';
import { attr, defineDataSource, defineSchema, element, type DataSourceReadRequest, type SchemaModel } from '../framework';

const computedString = (description: string) => attr.string({ computed: true, description });
const computedStrings = (description: string) => attr.list(element.string, { computed: true, description });

/** The schema of `agentplatform_sandbox_templates`. */
export const sandboxTemplatesSchema = defineSchema({
  description: 'The sandbox templates of the workspace: the platform\'s built-in ones first, then the workspace\'s own.',
  attributes: {
    templates: attr.listNested(
      {
        id: computedString('Template id.'),
        name: computedString('Template name, e.g. `python-3.12`.'),
        image: computedString('Container image of the sandbox.'),
        resources: attr.object(
          {
            cpu: computedString('CPU, as a Kubernetes quantity (e.g. `500m`).'),
            memory: computedString('Memory, as a Kubernetes quantity (e.g. `2Gi`).'),
            storage: computedString('Storage, as a Kubernetes quantity.'),
          },
          { computed: true, description: 'Resources of a sandbox.' },
        ),
        volume_mounts: attr.listNested(
          { volume_name: computedString('Volume.'), mount_path: computedString('Where it is mounted.') },
          { computed: true, description: 'Volumes mounted in the sandbox.' },
        ),
        proxy_config: attr.object(
          {
            rules: attr.listNested(
              {
                name: computedString('Rule name.'),
                match_hosts: computedStrings('Hosts the rule applies to.'),
                inject_headers: attr.map(element.string, {
                  computed: true,
                  sensitive: true,
                  description: 'Headers added to matching requests; such headers often carry credentials.',
                }),
                match_paths: computedStrings('Paths the rule applies to.'),
                enabled: attr.bool({ computed: true, description: 'Whether the rule is applied.' }),
              },
              { computed: true, description: 'Rules of the egress proxy.' },
            ),
            no_proxy: computedStrings('Hosts reached without the proxy.'),
          },
          { computed: true, description: 'Egress proxy of the sandbox.' },
        ),
        created_at: computedString('When the template was created (RFC 3339).'),
        updated_at: computedString('When it last changed (RFC 3339).'),
      },
      { computed: true, description: 'The templates.' },
    ),
  },
});

/** The attributes of `agentplatform_sandbox_templates`. */
export type SandboxTemplatesModel = SchemaModel<typeof sandboxTemplatesSchema>;

async function read({ ctx, signal }: DataSourceReadRequest<typeof sandboxTemplatesSchema>): Promise<SandboxTemplatesModel> {
  const templates = await ctx.controlPlane().listSandboxTemplates({ signal });
  return { templates: templates.map(toModel) };
}

function toModel(t: SandboxTemplate): NonNullable<SandboxTemplatesModel['templates']>[number] {
  return {
    id: t.id ?? null,
    name: t.name ?? null,
    image: t.image ?? null,
    resources: t.resources ? { cpu: t.resources.cpu ?? null, memory: t.resources.memory ?? null, storage: t.resources.storage ?? null } : null,
    volume_mounts: t.volume_mounts?.map((m) => ({ volume_name: m.volume_name ?? null, mount_path: m.mount_path ?? null })) ?? null,
    proxy_config: t.proxy_config
      ? {
          rules:
            t.proxy_config.rules?.map((r) => ({
              name: r.name ?? null,
              match_hosts: r.match_hosts ?? null,
              inject_headers: r.inject_headers ?? null,
              match_paths: r.match_paths ?? null,
              enabled: r.enabled ?? null,
            })) ?? null,
          no_proxy: t.proxy_config.no_proxy ?? null,
        }
      : null,
    created_at: t.created_at ?? null,
    updated_at: t.updated_at ?? null,
  };
}

export default defineDataSource({ typeName: 'agentplatform_sandbox_templates', schema: sandboxTemplatesSchema, read });
