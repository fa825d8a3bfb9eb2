/**
 * Deterministic generator of valid filter ASTs, built from the filter field table, for round-trip tests.
 */
import { FIELD_TYPE_RULES, FILTER_FIELDS, type FilterExpr, type FilterField, type FilterScalar } from '../../lib/api/filter';
import { prng as seeded } from '../../lib/local/tracing/synthetic/generate';

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];
const CHARACTERS = ['a', 'Z', '0', ' ', '"', "'", '\\', '\n', '\t', '\u0001', 'é', '😀', '%', '_', ',', '(', ')'];
const LEAF_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'has', 'like', 'search'] as const;

function text(random: Random): string {
  return Array.from({ length: Math.floor(random() * 8) }, () => pick(random, CHARACTERS)).join('');
}

function hex(random: Random, length: number): string {
  return Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
}

function timestamp(random: Random): string {
  const iso = new Date(Date.UTC(1990, 0, 1) + Math.floor(random() * 2e12)).toISOString();
  return pick(random, [iso, iso.slice(0, 10), iso.replace('Z', '123Z'), `${iso.slice(0, 19)}+05:30`, iso.slice(0, 16)]);
}

function number(random: Random, integer: boolean): number {
  if (integer) return Math.floor(random() * 2e6) - 1e6;
  return pick(random, [random() * 1000 - 500, 1e-7, 1e21, -0, 0.1 + 0.2, -Math.floor(random() * 100)]);
}

function valueFor(random: Random, field: FilterField): FilterScalar {
  switch (field.type) {
    case 'uuid':
    case 'uuid_list':
      return `${hex(random, 8)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 12)}`;
    case 'timestamp':
      return timestamp(random);
    case 'boolean':
      return random() < 0.5;
    case 'integer':
      return number(random, true);
    case 'float':
    case 'feedback_score':
      return number(random, false);
    case 'duration':
      return random() < 0.5 ? number(random, false) : pick(random, ['5s', '250ms', '1.5m', '2h']);
    case 'metadata_value':
      return pick<FilterScalar>(random, [text(random), number(random, false), random() < 0.5]);
    default:
      return text(random);
  }
}

function leaf(random: Random): FilterExpr {
  const op = pick(random, LEAF_OPS);
  const fields = [...FILTER_FIELDS.values()].filter((f) => FIELD_TYPE_RULES[f.type].operators.includes(op));
  if (op === 'search' && random() < 0.3) return { op, text: text(random) };
  const field = pick(random, fields);
  switch (op) {
    case 'in':
      return { op, field: field.name, values: Array.from({ length: 1 + Math.floor(random() * 3) }, () => valueFor(random, field)) };
    case 'has':
      return { op, field: field.name, value: valueFor(random, field) as string };
    case 'like':
      return { op, field: field.name, pattern: text(random) };
    case 'search':
      return { op, field: field.name, text: text(random) };
    default: {
      const nullable = [...FILTER_FIELDS.values()].filter((f) => FIELD_TYPE_RULES[f.type].nullable);
      if ((op === 'eq' || op === 'neq') && random() < 0.15) return { op, field: pick(random, nullable).name, value: null };
      return { op, field: field.name, value: valueFor(random, field) };
    }
  }
}

function expression(random: Random, depth: number): FilterExpr {
  if (depth === 0 || random() < 0.4) return leaf(random);
  const roll = random();
  if (roll < 0.2) return { op: 'not', arg: expression(random, depth - 1) };
  const args = Array.from({ length: 1 + Math.floor(random() * 3) }, () => expression(random, depth - 1));
  return { op: roll < 0.6 ? 'and' : 'or', args };
}

/** `count` valid expressions nested up to three levels, the same for the same seed. */
export function generateFilters(count: number, seed: number): FilterExpr[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => expression(random, 3));
}
