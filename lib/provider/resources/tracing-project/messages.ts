/**
 * User-facing errors and warnings of `agentplatform_tracing_project` and its data source.
 */
import { DiagnosticError, type Diagnostics } from '../../framework';
import { apiFailure, type BodyFields } from '../shared/bulk-export-messages';
import { statusOf } from '../shared/bulk-export-client';

/** Where the fields of a project's request bodies live in the configuration. */
const PROJECT_BODY_FIELDS: BodyFields = { name: 'name', description: 'description', extra: 'metadata' };

export const IMPORT_IT = "`terraform import <this resource's address> <id>`";

/** A refused or failed create, rename or change, as the diagnostic to throw. */
export function projectFailure(diagnostics: Diagnostics, err: unknown, doing: string, name: string, existingId?: string): DiagnosticError {
  if (statusOf(err) === 409) {
    const which = existingId ? ` (id ${existingId})` : '';
    return new DiagnosticError(
      `A tracing project named "${name}" already exists`,
      `The workspace already has a tracing project named "${name}"${which}, and names are unique in a workspace. Choose ` +
        `another name, or, to manage that project here, import it: ${IMPORT_IT}.`,
      'name',
    );
  }
  return apiFailure(diagnostics, err, doing, PROJECT_BODY_FIELDS);
}

/** The data source's error for a name no project of the workspace has. */
export function noProjectNamed(name: string): DiagnosticError {
  return new DiagnosticError(
    `No tracing project named "${name}"`,
    `The workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID) has no tracing project named "${name}". ` +
      'Check the name (names are case-sensitive), or create the project: declare an `agentplatform_tracing_project` ' +
      'resource with this name (and refer to its `id`), or trace a first run into it.',
    'name',
  );
}

/** The import error for an id that is not a UUID. spec: Bulk export, `session_id` is a string (uuid). */
export const BAD_IMPORT_ID = new DiagnosticError('Invalid import id', 'Import a tracing project by its id, a UUID as the platform shows it.');

/** The import error for an id the workspace has no project of. */
export function noProjectWithId(id: string): DiagnosticError {
  return new DiagnosticError(
    'Cannot import tracing project',
    `There is no tracing project ${id} in this workspace: check the id, and the workspace the provider uses (its \`tenant_id\` or AGENTPLATFORM_TENANT_ID).`,
  );
}
