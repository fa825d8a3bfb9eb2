import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import * as constructs from '../../lib/constructs';
import { exportPermissionsMarkdown, exportPolicyDocument } from '../../lib/constructs/export-permissions';
import { packageRoot } from '../../lib/provider/constants';

const read = (path: string): string => readFileSync(join(packageRoot(), path), 'utf8');

/** The `## Name` sections of the guide, by name, each as the code it shows: fenced blocks and `inline code`. */
function codeBySection(guide: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of guide.split(/^## /m).slice(1)) {
    const [heading, ...body] = part.split('\n');
    const text = body.join('\n');
    const fenced = [...text.matchAll(/```[\s\S]*?```/g)].map((m) => m[0]);
    const inline = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/``(.+?)``|`([^`\n]+)`/g)].map((m) => m[1] ?? m[2]);
    sections.set(heading!.trim(), [...fenced, ...inline].join('\n'));
  }
  return sections;
}

/**
 * What each section must name, found with the TypeScript compiler over lib/constructs: the class's public members
 * (static and instance) and its constructor's props; then, through their types, the members of every interface and
 * object type of lib/constructs they reach, and the static factories of every helper class (`DeploymentSource.github`
 * and the props it takes). A type is documented once: in its own section if it has one, else in the first section,
 * in the guide's order, that reaches it. Constructs reached as props (`destination`) are documented in their own
 * sections; the generated bindings are not walked.
 */
function undocumentedMembers(guide: string): string[] {
  const sections = codeBySection(guide);
  const program = ts.createProgram([join(packageRoot(), 'lib/constructs/index.ts')], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const ours = (node: ts.Node): boolean => /[/\\]lib[/\\]constructs[/\\](?!generated[/\\])/.test(node.getSourceFile().fileName);
  const index = program.getSourceFile(join(packageRoot(), 'lib/constructs/index.ts'))!;
  const exported = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(index)!)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & ts.SymbolFlags.Class) exported.set(symbol.name, target);
  }
  const isConstruct = (type: ts.Type): boolean => checker.getPropertyOfType(type, 'node') !== undefined;
  const publicOurs = (member: ts.Symbol): boolean => {
    const decl = member.valueDeclaration ?? member.declarations?.[0];
    return decl !== undefined && ours(decl) && member.name !== 'prototype' && !(ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
  };
  const typeOf = (symbol: ts.Symbol): ts.Type => checker.getTypeOfSymbolAtLocation(symbol, (symbol.valueDeclaration ?? symbol.declarations![0])!);
  const visited = new Set<ts.Symbol>();
  const missing: string[] = [];

  const walk = (section: string, code: string) => {
    const named = (member: ts.Symbol) => {
      const parent = (member.valueDeclaration ?? member.declarations![0])!.parent;
      const owner = ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent) ? parent.name?.text : 'an inline type';
      if (!new RegExp(`\\b${member.name}\\b`).test(code)) missing.push(`${section}: ${owner}.${member.name}`);
      reach(typeOf(member));
    };
    const reachSignatures = (type: ts.Type, kind: ts.SignatureKind) => {
      for (const signature of checker.getSignaturesOfType(type, kind)) {
        signature.getParameters().forEach((parameter) => reach(typeOf(parameter)));
        if (kind === ts.SignatureKind.Call) reach(checker.getReturnTypeOfSignature(signature));
      }
    };
    const reach = (type: ts.Type): void => {
      if (type.isUnionOrIntersection()) return type.types.forEach(reach);
      if (type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) {
        checker.getTypeArguments(type as ts.TypeReference).forEach(reach);
      }
      reachSignatures(type, ts.SignatureKind.Call);
      const symbol = type.getSymbol();
      const decl = symbol?.declarations?.[0];
      if (!symbol || !decl || !ours(decl) || visited.has(symbol) || isConstruct(type)) return;
      if (exported.get(symbol.name) === symbol && sections.has(symbol.name)) return; // its own section
      visited.add(symbol);
      // a helper class: its static factories (and what they take); an interface or object type: its members
      checker.getPropertiesOfType(symbol.flags & ts.SymbolFlags.Class ? typeOf(symbol) : type).filter(publicOurs).forEach(named);
    };
    const root = exported.get(section)!;
    visited.add(root);
    const statics = typeOf(root);
    for (const member of [...checker.getPropertiesOfType(statics), ...checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(root))]) {
      if (publicOurs(member)) named(member);
    }
    reachSignatures(statics, ts.SignatureKind.Construct);
  };
  for (const [name, symbol] of exported) if (isConstruct(checker.getDeclaredTypeOfSymbol(symbol)) && !sections.has(name)) missing.push(`${name}: no section`);
  for (const [section, code] of sections) if (exported.has(section)) walk(section, code);
  return missing;
}

describe('documentation', () => {
  const guide = read('docs/constructs.md');

  test('docs/constructs.md shows the permissions table the policy is made from', () => {
    expect(guide).toContain(exportPermissionsMarkdown());
  });

  test.each(['AgentPlatformProvider', 'Deployment', 'ExportBucket', 'ExportDestination', 'ScheduledExport', 'BulkExport', 'DeploymentRevisions', 'SandboxTemplates'])(
    '%s has its own section',
    (name) => {
      expect(typeof (constructs as Record<string, unknown>)[name]).toBe('function');
      expect(guide).toMatch(new RegExp(`^## ${name}$`, 'm'));
    },
  );

  test("each construct's section names every prop, output and factory it exposes", () => {
    expect(undocumentedMembers(guide)).toEqual([]);
  });

  test('the HCL version of the GitOps example grants the same actions as ExportBucket, on the same keys', () => {
    const hcl = read('examples/hcl/gitops/main.tf');
    const list = (text: string) => text.split(',').map((a) => a.trim().replace(/"/g, ''));
    const actions = [...hcl.matchAll(/Action\s*=\s*\[([^\]]*)\]/g)].map((m) => list(m[1]!));
    const resources = [...hcl.matchAll(/Resource\s*=\s*\[([^\]]*)\]/g)].map((m) => list(m[1]!));
    const objects = '${aws_s3_bucket.traces.arn}/${local.export_prefix}/*';
    const document = exportPolicyDocument(objects) as { Statement: { Action: string[]; Resource: string[] }[] };
    expect(actions).toEqual(document.Statement.map((statement) => statement.Action));
    expect(resources).toEqual(document.Statement.map((statement) => statement.Resource));
  });
});
