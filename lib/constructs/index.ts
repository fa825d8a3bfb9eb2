/**
 * The cdktf construct library of the agent platform. Import from here; the `generated/` bindings (one class per
 * provider resource and data source) are the escape hatch.
 */
export { Filter, type FilterValue } from './filter';
export type { FilterExpr } from '../api/filter';
export type { ExportableFieldName } from '../api/schemas/trace';
export type { RevisionStatusName } from '../api/schemas/control-plane-constants';
export * from './assistant';
export * from './bulk-export';
export * from './cron';
export * from './data';
export * from './deployment';
export * from './deployment-ref';
export * from './duration';
export { ConstructValidationError, type Violation } from './errors';
export * from './export-bucket';
export * from './export-destination';
export type { ExportPermissionOptions } from './export-permissions';
export type { ExportFilter, ExportQueryProps, ExportTime } from './export-query';
export * from './provider';
export * from './scheduled-export';
export * from './tracing-project';
export * as generated from './generated';
