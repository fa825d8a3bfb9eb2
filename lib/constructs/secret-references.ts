/**
 * Secrets given as tokens are checked at synth, once every variable and local of the stack exists: a token that is
 * literal text in disguise (`Fn.join('', ['sk-…'])`, a `TerraformLocal` holding a literal, a variable with a
 * `default`) would write the secret into the synthesized JSON as surely as a literal string. A secret must come from
 * a variable given its value at apply (`TF_VAR_…`, ideally sensitive and ephemeral) or from another resource's
 * attribute, and not be an expression that may give one of its quoted strings (`var.prod ? var.key : "dev-key"`).
 * Literal text combined with a reference (`"Bearer ${var.token}"`) is written as it is: only what the references stand
 * for stays out.
 */
import { Annotations, DefaultTokenResolver, StringConcat, TerraformLocal, TerraformStack, TerraformVariable, Token, Tokenization } from 'cdktf';
import type { IConstruct } from 'constructs';

/** An HCL expression with its quoted strings taken out, so that a dot inside a string is not a reference. */
const withoutStrings = (expression: string): string => expression.replace(/"(?:[^"\\]|\\.)*"/g, '""');

/** A quoted string of an HCL expression. */
const QUOTED_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * Whether an expression (the inside of a `${…}`) may give one of its quoted strings: a branch of a conditional
 * (`c ? "a" : "b"`), or an argument of `coalesce` or `try` (the fallback). A quoted string elsewhere (a map key, a
 * separator, a function's argument) is no secret. Strings are masked first, so their own `?`, `:` and `,` are text.
 */
function mayGiveQuotedString(inner: string): boolean {
  const masked = inner.replace(QUOTED_STRING, (quoted) => (quoted === '""' ? '""' : '"s"'));
  if (/[?:]\s*"s"/.test(masked)) return true;
  for (const call of masked.matchAll(/\b(?:coalesce|try)\s*\(/g)) {
    if (topLevelArguments(masked, call.index! + call[0].length).some((argument) => argument.trim() === '"s"')) return true;
  }
  return false;
}

/** The arguments of the call whose `(` ends just before `from`, split at its own commas (not those of nested calls). */
function topLevelArguments(text: string, from: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < text.length; i++) {
    const char = text[i]!;
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) {
      if (depth === 0) return [...args, text.slice(start, i)];
      depth--;
    } else if (char === ',' && depth === 0) {
      args.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return [...args, text.slice(start)];
}

/** The insides of the `${…}` of an expression, each to its matching `}` (an object inside one holds braces too). */
function interpolationsOf(expression: string): string[] {
  const insides: string[] = [];
  for (let start = expression.indexOf('${'); start >= 0; start = expression.indexOf('${', start + 2)) {
    let depth = 1;
    let i = start + 2;
    for (; i < expression.length && depth > 0; i++) {
      const char = expression[i];
      if (char === '"') {
        // a quoted string inside the expression: its braces are text
        for (i++; i < expression.length && expression[i] !== '"'; i++) if (expression[i] === '\\') i++;
      } else if (char === '{') depth++;
      else if (char === '}') depth--;
    }
    // an unclosed `${` (literal text) runs to the end
    insides.push(expression.slice(start + 2, depth === 0 ? i - 1 : i));
    start = i - 2;
  }
  return insides;
}

/** The references (`var.x`, `local.y`, `aws_iam_access_key.k.secret`, …) inside the `${…}` of an expression. */
function referencesOf(expression: string): string[] {
  const references: string[] = [];
  for (const inner of interpolationsOf(expression)) {
    for (const [reference] of withoutStrings(inner).matchAll(/\b[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+/g)) references.push(reference);
    // a template string inside the expression (`base64encode("${var.user}:${var.password}")`) has references of its own
    for (const [quoted] of inner.matchAll(QUOTED_STRING)) if (quoted.includes('${')) references.push(...referencesOf(quoted));
  }
  return references;
}

function resolved(scope: IConstruct, value: unknown): unknown {
  return Tokenization.resolve(value, { scope, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) });
}

/** What is wrong with a secret that resolves to `expression`, if anything. */
function expressionProblem(stack: TerraformStack, expression: unknown, seen: Set<string>): string | undefined {
  // a local of an object or a list (a map of secrets): each of its values
  if (expression !== null && typeof expression === 'object') {
    for (const value of Object.values(expression)) {
      const problem = expressionProblem(stack, value, seen);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof expression !== 'string' || !expression.includes('${')) {
    return 'is literal text in the synthesized JSON';
  }
  const references = referencesOf(expression);
  // the expression is not quoted: it holds the secret
  if (references.length === 0) return 'is built from literal text only (a function of literals, for example): it is written into the synthesized JSON';
  if (interpolationsOf(expression).some(mayGiveQuotedString)) {
    return 'may be literal text: a branch or a fallback of its expression is a quoted string, written into the synthesized JSON';
  }
  for (const reference of references) {
    const [kind, name] = reference.split('.');
    if (kind === 'var') {
      const variable = elementNamed(stack, TerraformVariable, name!);
      if (variable?.default !== undefined) {
        return `comes from variable "${name}", whose default is written into the synthesized JSON: drop the default and give the value at apply (TF_VAR_${name})`;
      }
    } else if (kind === 'local' && !seen.has(name!)) {
      seen.add(name!);
      const local = elementNamed(stack, TerraformLocal, name!);
      const expressionOfLocal = local && (local.toTerraform() as { locals?: Record<string, unknown> }).locals?.[name!];
      if (local) {
        const problem = expressionProblem(stack, resolved(local, expressionOfLocal), seen);
        if (problem) return `comes from local "${name}", which ${problem}`;
      }
    }
  }
  return undefined;
}

const JSII_RTTI = Symbol.for('jsii.rtti');
/** The jsii type name of a cdktf class (`cdktf.TerraformVariable`), the same in every copy of cdktf. */
const fqnOf = (type: unknown): string | undefined => (type as { [JSII_RTTI]?: { fqn?: string } } | undefined)?.[JSII_RTTI]?.fqn;

/**
 * The variable or local of the stack with this name. An app whose cdktf is another copy than this library's (a
 * package installed from a linked folder) makes its elements with that copy's classes: they are recognised by their
 * jsii type name, so the checks still see them.
 */
function elementNamed<T extends TerraformVariable | TerraformLocal>(
  stack: TerraformStack,
  type: abstract new (...args: never[]) => T,
  name: string,
): T | undefined {
  const fqn = fqnOf(type);
  const isOfType = (node: unknown): node is T =>
    node instanceof type || (fqn !== undefined && typeof node === 'object' && node !== null && fqnOf(node.constructor) === fqn);
  return stack.node.findAll().find((node): node is T => isOfType(node) && node.friendlyUniqueId === name);
}

/**
 * Adds a synth-time validation to `scope`: each secret given as a token (`secrets()`: prop name and value; literals
 * are refused when the construct is created) must come from a reference that keeps its value out of the JSON.
 */
export function validateSecretReferences(scope: IConstruct, secrets: () => readonly (readonly [string, unknown])[]): void {
  scope.node.addValidation({ validate: () => secretReferenceProblems(scope, secrets()) });
}

/**
 * The same check as {@link validateSecretReferences}, whose problems are warnings (the provider's API key, whose
 * literal is a warning too): added once, however many times the stack is synthesized.
 */
export function warnOfSecretReferences(scope: IConstruct, secrets: () => readonly (readonly [string, unknown])[]): void {
  let warned = false;
  scope.node.addValidation({
    validate: () => {
      if (!warned) secretReferenceProblems(scope, secrets()).forEach((problem) => Annotations.of(scope).addWarning(problem));
      warned = true;
      return [];
    },
  });
}

/** What is wrong with each secret given as a token (`secrets`: prop name and value). */
function secretReferenceProblems(scope: IConstruct, secrets: readonly (readonly [string, unknown])[]): string[] {
  const stack = TerraformStack.of(scope);
  const problems: string[] = [];
  for (const [prop, value] of secrets) {
    if (value === undefined || !Token.isUnresolved(value)) continue;
    const problem = expressionProblem(stack, resolved(scope, value), new Set());
    if (problem) problems.push(`${prop} ${problem}.`);
  }
  return problems;
}
