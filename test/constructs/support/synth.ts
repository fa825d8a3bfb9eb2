/** Stacks for synth tests: a stack with the agentplatform provider, its synthesized JSON, and validation results. */
import { AnnotationMetadataEntryType, Testing, TerraformStack } from 'cdktf';
import { setupJest } from 'cdktf/lib/testing/adapters/jest';
import type { IConstruct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { AgentPlatformProvider } from '../../../lib/constructs/provider';
import { ConstructValidationError, type Violation } from '../../../lib/constructs/errors';

// Registers toHaveResourceWithProperties and friends (the import also brings their types).
setupJest();

/** A stack in a fresh test app, with the agentplatform provider. */
export function providerStack(): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'test');
  new AgentPlatformProvider(stack, 'agentplatform');
  return stack;
}

/** A stack with the agentplatform and the AWS providers, for the export constructs. */
export function exportStack(): TerraformStack {
  const stack = providerStack();
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  return stack;
}

/** The synthesized Terraform JSON of a stack, parsed. */
export function synthesized(stack: TerraformStack): SynthesizedJson {
  return JSON.parse(Testing.synth(stack)) as SynthesizedJson;
}

/** The parts of a synthesized stack the tests read. */
export interface SynthesizedJson {
  readonly resource: Record<string, Record<string, Record<string, unknown>>>;
  readonly data?: Record<string, Record<string, Record<string, unknown>>>;
  readonly provider: Record<string, unknown[]>;
  readonly terraform: { required_providers: Record<string, { source: string; version: string }> };
}

/** The resources of a type in a synthesized stack, by address. */
export function resourcesOf(json: SynthesizedJson, type: string): Record<string, Record<string, unknown>> {
  return json.resource[type] ?? {};
}

/** The one resource of a type in a synthesized stack. */
export function onlyResource(json: SynthesizedJson, type: string): Record<string, unknown> {
  const all = Object.values(json.resource[type] ?? {});
  if (all.length !== 1) throw new Error(`expected one ${type}, found ${all.length}`);
  return all[0]!;
}

/** The violations `build` throws (it must throw a ConstructValidationError). */
export function violationsOf(build: () => unknown): Violation[] {
  try {
    build();
  } catch (error) {
    if (error instanceof ConstructValidationError) return [...error.violations];
    throw error;
  }
  throw new Error('expected a ConstructValidationError, but nothing was thrown');
}

/** The error message `build` throws. */
export function messageOf(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error, but nothing was thrown');
}

/** The warnings annotated on a construct. */
export function warningsOf(construct: IConstruct): string[] {
  return construct.node.metadata.filter((m) => m.type === AnnotationMetadataEntryType.WARN).map((m) => String(m.data));
}
