/**
 * Everything a resource or data source file needs, from one import: `import { attr, defineResource, … } from
 * '../framework'`. The zod model (`zod-model.ts`) and the docs generator (`docs.ts`) are left out on purpose:
 * they are for tools and tests, and loading zod would slow every provider launch.
 */
export { UNKNOWN, isKnown, type Unknown } from '../cty/value';
export type { ProviderContext } from '../context';
export { Diagnostics, DiagnosticError, formatPath, parsePath, type AttributePath, type Diagnostic, type PathLike } from './diagnostics';
export {
  defineDataSource,
  defineResource,
  type ConfigModel,
  type CreateRequest,
  type DataSourceDefinition,
  type DataSourceReadRequest,
  type DeleteRequest,
  type ImportRequest,
  type JsonState,
  type PlanRequest,
  type ReadRequest,
  type ResourceDefinition,
  type Unknownable,
  type UpdateRequest,
  type ValidateRequest,
} from './resource';
export { PrivateState, type PrivateValue } from './private-state';
export { given } from './answers';
export { attr, block, defineSchema, element, type Attributes, type ModelOf, type Schema, type SchemaModel } from './schema';
export { durationProblem, formatDuration, parseDuration, timeoutMs, timeoutsAttribute, type TimeoutsAttribute } from './timeouts';
