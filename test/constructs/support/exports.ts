/** Stacks with one export construct on a destination given by id, for the export construct tests. */
import type { TerraformStack } from 'cdktf';
import { BulkExport, type BulkExportProps } from '../../../lib/constructs/bulk-export';
import { Duration } from '../../../lib/constructs/duration';
import { ExportDestination } from '../../../lib/constructs/export-destination';
import { ScheduledExport, type ScheduledExportProps } from '../../../lib/constructs/scheduled-export';
import { providerStack } from './synth';

/** The tracing project the exports read. */
export const PROJECT = '6f1c2a9e-8d4b-4f7a-9c3e-2b5d8a1f0e47';
/** The destination they write to. */
export const DESTINATION = '0c0ffee0-0000-4000-8000-000000000001';

/** A stack with a daily ScheduledExport from 2025-01-01, with `props` over these. */
export function scheduled(props: Partial<ScheduledExportProps> = {}, stack: TerraformStack = providerStack()): TerraformStack {
  const destination = ExportDestination.fromDestinationId(stack, 'Destination', DESTINATION);
  new ScheduledExport(stack, 'Daily', { destination, tracingProjectId: PROJECT, start: '2025-01-01T00:00:00Z', every: Duration.hours(24), ...props });
  return stack;
}

/** A stack with a BulkExport of January 2025, with `props` over these. */
export function oneOff(props: Partial<BulkExportProps> = {}, stack: TerraformStack = providerStack()): TerraformStack {
  const destination = ExportDestination.fromDestinationId(stack, 'Destination', DESTINATION);
  new BulkExport(stack, 'Backfill', { destination, tracingProjectId: PROJECT, start: '2025-01-01T00:00:00Z', end: '2025-02-01T00:00:00Z', ...props });
  return stack;
}
