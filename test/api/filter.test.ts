import {
  FILTER_FIELDS,
  FIELD_TYPE_RULES,
  Filter,
  FilterSyntaxError,
  MAX_FILTER_DEPTH,
  compileFilter,
  parseFilter,
  referencedFields,
  renderFilter,
  reviewFilter,
  validateFilter,
  type FilterErrorCode,
  type TraceRunLike,
} from '../../lib/api/filter';
import { generateFilters } from './filter-generator';
import { likes, reference } from './like-reference';

const ROOT_ID = '7b0c5a86-2f1e-4d5b-9a43-6c1f0e2d3b4a';
const LLM_ID = '1f2e3d4c-5b6a-4789-8a7b-6c5d4e3f2a1b';

/** Four runs in the shapes records arrive in: API objects, SQLite rows (0/1, JSON text, epoch ms), sparse rows. */
const RUNS: Readonly<Record<string, TraceRunLike>> = {
  root: {
    id: ROOT_ID,
    name: 'Agent',
    run_type: 'chain',
    status: 'success',
    start_time: '2024-05-01T10:00:00.000001Z',
    end_time: '2024-05-01T10:00:07Z',
    is_root: true,
    parent_run_id: null,
    parent_run_ids: [],
    tags: ['prod', 'v2'],
    total_tokens: 1500,
    total_cost: 0.0123,
    inputs: { question: 'What is the capital of France?' },
    outputs: { answer: 'Paris' },
    error: null,
    extra: { metadata: { env: 'prod', thread_id: 'T-1' } },
    feedback_stats: { correctness: { n: 2, avg: 1 }, helpfulness: { n: 1, avg: 0.5 } },
  },
  llm: {
    id: LLM_ID,
    name: 'ChatModel',
    run_type: 'llm',
    status: 'success',
    start_time: '2024-05-01T10:00:01Z',
    end_time: '2024-05-01T10:00:03.5Z',
    is_root: false,
    parent_run_id: ROOT_ID,
    parent_run_ids: [ROOT_ID],
    tags: ['beta'],
    total_tokens: 1200,
    total_cost: 0.01,
    inputs: { messages: [{ role: 'user', content: 'Capital of FRANCE?' }] },
    outputs: { text: 'Paris' },
    error: null,
    extra: { metadata: { env: 'dev', ls_model: 'fake-1' } },
    feedback_stats: null,
  },
  tool: {
    name: 'search_tool',
    run_type: 'tool',
    status: 'error',
    start_time: Date.parse('2024-05-01T10:00:04Z'),
    end_time: null,
    is_root: 0,
    tags: '["beta","x_1"]',
    total_tokens: null,
    inputs: '{"query":"50% off"}',
    outputs: null,
    error: 'Timeout after 30s',
    extra: null,
    feedback_stats: '{"correctness":{"n":1,"avg":0}}',
  },
  pending: { name: 'Agent_2', run_type: 'chain', status: 'pending', start_time: new Date('2024-05-02T00:00:00+02:00') },
};

function matching(text: string): string[] {
  const predicate = compileFilter(parseFilter(text));
  return Object.keys(RUNS).filter((key) => predicate(RUNS[key]));
}

describe('operators', () => {
  it.each([
    ['eq(run_type, "llm")', ['llm']],
    ["eq(run_type, 'chain')", ['root', 'pending']],
    ['neq(run_type, "chain")', ['llm', 'tool']],
    ['neq(total_tokens, 1500)', ['llm']],
    ['eq(error, null)', ['root', 'llm', 'pending']],
    ['neq(error, null)', ['tool']],
    ['gt(total_tokens, 1200)', ['root']],
    ['gte(total_tokens, 1200)', ['root', 'llm']],
    ['lt(total_tokens, 1500)', ['llm']],
    ['lte(total_tokens, 1500)', ['root', 'llm']],
    ['eq(total_cost, 0.01)', ['llm']],
    ['gt(name, "B")', ['llm', 'tool']],
    ['lt(name, "Agent_3")', ['root', 'pending']],
    ['gt(start_time, "2024-05-01T10:00:00Z")', ['root', 'llm', 'tool', 'pending']],
    ['lte(start_time, "2024-05-01T10:00:00.000001Z")', ['root']],
    ['eq(start_time, "2024-05-01T12:00:04+02:00")', ['tool']],
    ['gte(start_time, "2024-05-01T22:00:00Z")', ['pending']],
    ['lt(start_time, "2024-05-01T12:00:00Z")', ['root', 'llm', 'tool']],
    ['in(run_type, ["llm", "tool"])', ['llm', 'tool']],
    ['in(total_tokens, [1200, 7])', ['llm']],
    ['eq(is_root, true)', ['root']],
    ['eq(is_root, false)', ['llm', 'tool']],
    ['neq(is_root, true)', ['llm', 'tool']],
    ['has(tags, "beta")', ['llm', 'tool']],
    ['has(tags, "prod")', ['root']],
    [`has(parent_run_ids, "${ROOT_ID.toUpperCase()}")`, ['llm']],
    [`eq(parent_run_id, "${ROOT_ID}")`, ['llm']],
    [`eq(id, "${LLM_ID.toUpperCase()}")`, ['llm']],
    ['like(name, "Agent%")', ['root', 'pending']],
    ['like(name, "agent%")', []],
    ['like(name, "Agent_")', []],
    ['like(name, "Agent__")', ['pending']],
    ['like(name, "Agent\\\\_%")', ['pending']],
    ['like(name, "%_tool")', ['tool']],
    ['search("paris")', ['root', 'llm']],
    ['search("FRANCE")', ['root', 'llm']],
    ['search("timeout")', ['tool']],
    ['search("50% off")', ['tool']],
    ['search(name, "AGENT")', ['root', 'pending']],
    ['search(inputs, "role")', ['llm']],
    ['search(tags, "X_")', ['tool']],
    ['gt(latency, 5)', ['root']],
    ['lt(latency, "3s")', ['llm']],
    ['gte(latency, "2500ms")', ['root', 'llm']],
    ['eq(inputs, null)', ['pending']],
    ['neq(outputs, null)', ['root', 'llm']],
  ])('%s', (text, expected) => expect(matching(text)).toEqual(expected));
});

describe('metadata and feedback pairs', () => {
  it.each([
    ['eq(metadata_key, "env")', ['root', 'llm']],
    ['neq(metadata_key, "env")', ['tool', 'pending']],
    ['eq(metadata_value, "prod")', ['root']],
    ['neq(metadata_value, "prod")', ['llm', 'tool', 'pending']],
    ['and(eq(metadata_key, "env"), eq(metadata_value, "dev"))', ['llm']],
    ['and(eq(metadata_key, "ls_model"), eq(metadata_value, "prod"))', []],
    ['and(in(metadata_key, ["thread_id", "session_id"]), eq(metadata_value, "T-1"))', ['root']],
    ['and(eq(metadata_key, "env"), neq(metadata_value, "prod"))', ['llm']],
    ['and(neq(metadata_key, "thread_id"), eq(metadata_value, "dev"))', ['llm']],
    ['eq(feedback_key, "correctness")', ['root', 'tool']],
    ['and(eq(feedback_key, "correctness"), eq(feedback_score, 0))', ['tool']],
    ['and(eq(feedback_key, "helpfulness"), gt(feedback_score, 0.9))', []],
    ['gt(feedback_score, 0.9)', ['root']],
  ])('%s', (text, expected) => expect(matching(text)).toEqual(expected));
});

describe('nesting', () => {
  it.each([
    ['and(eq(run_type, "chain"), or(has(tags, "prod"), eq(status, "pending")))', ['root', 'pending']],
    ['or(and(eq(run_type, "llm"), gt(total_tokens, 1000)), and(eq(run_type, "tool"), neq(error, null)))', ['llm', 'tool']],
    ['not(eq(run_type, "chain"))', ['llm', 'tool']],
    ['not(neq(status, "success"))', ['root', 'llm']],
    ['not(gt(total_tokens, 1000))', ['tool', 'pending']],
    ['and(eq(run_type, "chain"))', ['root', 'pending']],
    ['or(eq(name, "Agent"))', ['root']],
    ['and(or(not(not(eq(run_type, "llm"))), eq(run_type, "tool")), has(tags, "beta"))', ['llm', 'tool']],
    ["and(\n\teq(run_type, 'llm') ,\r\n has( tags , 'beta' ) )", ['llm']],
  ])('%j', (text, expected) => expect(matching(text)).toEqual(expected));

  it('agrees with direct evaluation over many records', () => {
    const types = ['chain', 'llm', 'tool'];
    const runs = Array.from({ length: 50_000 }, (_, i) => ({
      run_type: types[i % 3],
      total_tokens: (i * 7919) % 5000,
      start_time: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      tags: i % 4 === 0 ? ['beta'] : [],
    }));
    const predicate = compileFilter(
      parseFilter('and(eq(run_type, "llm"), or(gt(total_tokens, 4000), has(tags, "beta")), lt(start_time, "2024-01-20T00:00:00Z"))'),
    );
    const cutoff = Date.UTC(2024, 0, 20);
    const direct = runs.filter(
      (run) => run.run_type === 'llm' && (run.total_tokens > 4000 || run.tags.includes('beta')) && Date.parse(run.start_time) < cutoff,
    );
    expect(runs.filter(predicate)).toEqual(direct);
  });
});

function errorOf(text: string): FilterSyntaxError {
  const result = validateFilter(text);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
  return result.error;
}

describe('errors', () => {
  it('shows the expression with a caret under the offending position', () => {
    expect(errorOf('eq(run_typ, "llm")').message).toBe(
      'filter: unknown field "run_typ" at position 3; did you mean "run_type"?\n  eq(run_typ, "llm")\n     ^',
    );
    expect(errorOf('and(eq(run_type, "llm"), gt(total_tokens, "abc"))').message).toBe(
      'filter: gt(total_tokens, …) expects an integer, found string "abc" at position 42\n' +
        '  and(eq(run_type, "llm"), gt(total_tokens, "abc"))\n' +
        '                                            ^',
    );
  });

  const deep = `${'not('.repeat(MAX_FILTER_DEPTH + 5)}eq(name, "x")${')'.repeat(MAX_FILTER_DEPTH + 5)}`;
  // lists nest too: thousands of "[" are an error at the first one too deep, not a stack overflow
  const deepList = `in(name, ${'['.repeat(5_000)}`;
  it.each<[string, FilterErrorCode, number, string | undefined]>([
    ['eq(name, "x") & eq(name, "y")', 'unexpected_character', 14, undefined],
    ['eq(name, "abc', 'unterminated_string', 9, undefined],
    ["eq(name, 'abc", 'unterminated_string', 9, undefined],
    ['eq(name, "a\\q")', 'invalid_escape', 11, 'write a literal backslash as \\\\'],
    ['gt(total_tokens, 12abc)', 'invalid_number', 17, undefined],
    ['eq(name "x")', 'unexpected_token', 8, undefined],
    ['run_type', 'unexpected_token', 0, 'compare it, for example eq(run_type, …)'],
    ['eq("run_type", "llm")', 'unexpected_token', 3, 'field names are not quoted: write run_type'],
    ['and(eq(run_type, "llm")', 'unexpected_end', 23, undefined],
    ['', 'unexpected_end', 0, undefined],
    ['   ', 'unexpected_end', 3, undefined],
    ['eq(run_type, "llm"))', 'trailing_input', 19, undefined],
    ['eq(run_type, "llm") eq(name, "x")', 'trailing_input', 20, undefined],
    [deep, 'too_deep', 4 * MAX_FILTER_DEPTH, undefined],
    [deepList, 'too_deep', 9 + MAX_FILTER_DEPTH - 1, undefined],
    ['contains(name, "x")', 'unknown_operator', 0, undefined],
    ['AND(eq(name, "x"))', 'unknown_operator', 0, 'did you mean "and"?'],
    ['eq(run_type)', 'arity', 11, undefined],
    ['eq(name, "a", "b")', 'arity', 14, undefined],
    ['not(eq(name, "a"), eq(name, "b"))', 'arity', 19, undefined],
    ['and()', 'arity', 4, undefined],
    ['search()', 'arity', 7, undefined],
    ['has(name, "x")', 'operator_not_applicable', 4, 'has applies to parent_run_ids, tags'],
    ['gt(is_root, true)', 'operator_not_applicable', 3, undefined],
    ['like(total_tokens, "1%")', 'operator_not_applicable', 5, undefined],
    ['search(total_tokens, "1")', 'operator_not_applicable', 7, undefined],
    ['gt(total_tokens, "abc")', 'type_mismatch', 17, undefined],
    ['eq(run_type, llm)', 'type_mismatch', 13, 'quote it: "llm"'],
    ['eq(is_root, "true")', 'type_mismatch', 12, undefined],
    ['in(run_type, "llm")', 'type_mismatch', 13, undefined],
    ['eq(inputs, "x")', 'type_mismatch', 11, undefined],
    ['gt(total_tokens, null)', 'type_mismatch', 17, undefined],
    ['eq(latency, null)', 'type_mismatch', 12, undefined],
    ['search(42)', 'type_mismatch', 7, undefined],
    ['like(name, %abc%)', 'unexpected_character', 11, undefined],
    ['gt(start_time, "yesterday")', 'invalid_value', 15, undefined],
    ['eq(id, "not-a-uuid")', 'invalid_value', 7, undefined],
    ['gt(total_tokens, 1.5)', 'invalid_value', 17, undefined],
    ['gt(latency, "5 sec")', 'invalid_value', 12, undefined],
    ['in(run_type, [])', 'invalid_value', 14, undefined],
    ['has(parent_run_ids, "x")', 'invalid_value', 20, undefined],
  ])('%j → %s at %d', (text, code, position, hint) => {
    const error = errorOf(text);
    expect({ code: error.code, position: error.position }).toEqual({ code, position });
    if (hint !== undefined) expect(error.hint).toBe(hint);
    expect(error).toBeInstanceOf(FilterSyntaxError);
    expect(error.expression).toBe(text);
    expect(error.actual.length).toBeGreaterThan(0);
    const [headline, shown, caret] = error.message.split('\n');
    expect(headline).toContain(`at position ${position}`);
    expect(shown[caret.indexOf('^')]).toBe(text[position]);
    expect(() => parseFilter(text)).toThrow(FilterSyntaxError);
  });

  it('gives line and column in multi-line expressions and shows only the offending line', () => {
    const error = errorOf('and(\n  eq(name, "x"),\n  gt(total_tokens, 1.5)\n)');
    expect({ line: error.line, column: error.column, position: error.position }).toEqual({ line: 3, column: 20, position: 41 });
    expect(error.message).toBe(
      `filter: 1.5 is not an integer for field "total_tokens" at position 41 (line 3, column 20)\n    gt(total_tokens, 1.5)\n  ${' '.repeat(19)}^`,
    );
  });

  it('says an integer past 2^53 is too large, rather than quoting it rounded as "not an integer"', () => {
    expect(errorOf('eq(total_tokens, 9007199254740993)').message).toMatch(
      /^filter: the integer is too large: a filter compares integers from -9007199254740991 to 9007199254740991 for field "total_tokens" at position 17/,
    );
    expect(() => parseFilter('eq(total_tokens, 9007199254740991)')).not.toThrow();
  });

  it('names what was expected and what was found', () => {
    const error = errorOf('and(eq(run_type, "llm")');
    expect({ expected: error.expected, actual: error.actual }).toEqual({ expected: '"," or ")"', actual: 'end of input' });
  });

  it('windows a long line around the position', () => {
    const error = errorOf(`eq(name, "${'x'.repeat(300)}", 3)`);
    const [, shown, caret] = error.message.split('\n');
    expect(shown.length).toBeLessThanOrEqual(104);
    expect(shown[caret.indexOf('^')]).toBe('3');
  });
});

describe('review as a client of the platform', () => {
  test('operators and fields this project does not know are only warned of: the spec names and, eq and like "such as"', () => {
    for (const text of ['similar(agent_name, "support")', 'and(eq(run_type, "llm"), within(latency, [1, 2]))', 'eq(cost_center, "x")']) {
      const review = reviewFilter(text);
      expect(review.shape).toBeUndefined();
      expect(review.unknown).toBeInstanceOf(FilterSyntaxError);
    }
    expect(reviewFilter('and(eq(run_type, "llm"), like(name, "%agent%"))')).toEqual({});
    // deeper than the local platform reads: of the spec's shape all the same
    const deep = `${'not('.repeat(MAX_FILTER_DEPTH + 1)}eq(run_type, "llm")${')'.repeat(MAX_FILTER_DEPTH + 1)}`;
    expect(reviewFilter(deep).shape).toBeUndefined();
    expect(reviewFilter(deep).unknown?.code).toBe('too_deep');
  });

  test('what is not of function-style operators is refused, with its position', () => {
    for (const [text, position] of [
      ['run_type = "llm"', 9],
      ['eq(run_type "llm")', 12],
      ['"llm"', 0],
      ['eq(run_type, "llm"', 18],
    ] as const) {
      const review = reviewFilter(text);
      expect(review.shape).toBeInstanceOf(FilterSyntaxError);
      expect(review.shape!.position).toBe(position);
    }
  });
});

describe('literals', () => {
  it('reads quotes, escapes and numbers', () => {
    expect(parseFilter(`eq(name, 'it\\'s "x"\\n\\u00e9\\\\')`)).toEqual({ op: 'eq', field: 'name', value: 'it\'s "x"\né\\' });
    expect(parseFilter('eq(total_cost, -0.25)')).toEqual({ op: 'eq', field: 'total_cost', value: -0.25 });
    expect(parseFilter('gt(total_cost, 1e-7)')).toEqual({ op: 'gt', field: 'total_cost', value: 1e-7 });
    expect(parseFilter('eq(total_tokens, 1.0)')).toEqual({ op: 'eq', field: 'total_tokens', value: 1 });
    expect(parseFilter('search("x")')).toEqual({ op: 'search', text: 'x' });
  });
});

describe('render and round trip', () => {
  it('renders the canonical form', () => {
    expect(renderFilter(parseFilter("and( eq(run_type,'llm') ,gt(total_tokens , 5000) )"))).toBe(
      'and(eq(run_type, "llm"), gt(total_tokens, 5000))',
    );
    expect(renderFilter(parseFilter("eq(name, 'a\"b\\\\c\\t')"))).toBe('eq(name, "a\\"b\\\\c\\t")');
  });

  it('parses back every rendered expression of a generated set', () => {
    const exprs = generateFilters(400, 20240501);
    expect(new Set(exprs.map((expr) => expr.op)).size).toBe(13);
    for (const expr of exprs) {
      const text = renderFilter(expr);
      expect({ text, expr: parseFilter(text) }).toEqual({ text, expr });
      expect(renderFilter(parseFilter(text))).toBe(text);
    }
  });
});

describe('builder', () => {
  it('builds checked expressions that render the language', () => {
    const expr = Filter.and(Filter.eq('run_type', 'llm'), Filter.gt('total_tokens', 1000), Filter.not(Filter.has('tags', 'beta')));
    expect(renderFilter(expr)).toBe('and(eq(run_type, "llm"), gt(total_tokens, 1000), not(has(tags, "beta")))');
    expect(renderFilter(Filter.gte('start_time', new Date(Date.UTC(2024, 4, 1))))).toBe('gte(start_time, "2024-05-01T00:00:00.000Z")');
    expect(renderFilter(Filter.or(Filter.eq('error', null), Filter.search('timeout'), Filter.search('name', 'agent')))).toBe(
      'or(eq(error, null), search("timeout"), search(name, "agent"))',
    );
    expect(renderFilter(Filter.in('run_type', ['llm', 'tool']))).toBe('in(run_type, ["llm", "tool"])');
    expect(renderFilter(Filter.like('name', 'Agent%'))).toBe('like(name, "Agent%")');
    expect(Filter.parse('eq(run_type, "llm")')).toEqual(Filter.eq('run_type', 'llm'));
  });

  it('rejects values the parser rejects, with the same error', () => {
    expect(() => Filter.gt('start_time', 'yesterday')).toThrow(/is not an ISO 8601 timestamp/);
    // @ts-expect-error has only takes list fields
    expect(() => Filter.has('name', 'x')).toThrow(FilterSyntaxError);
    // @ts-expect-error total_tokens takes numbers
    expect(() => Filter.eq('total_tokens', 'many')).toThrow(FilterSyntaxError);
  });
});

describe('helpers', () => {
  it('lists the record fields a filter reads', () => {
    expect(referencedFields(parseFilter('search("x")')).sort()).toEqual(['error', 'inputs', 'name', 'outputs']);
    expect(referencedFields(parseFilter('and(gt(latency, 1), not(eq(metadata_key, "a")), has(tags, "b"))')).sort()).toEqual([
      'end_time',
      'extra',
      'start_time',
      'tags',
    ]);
  });

  it('validates without throwing', () => {
    const ok = validateFilter('eq(run_type, "llm")');
    expect(ok).toEqual({ ok: true, expr: { op: 'eq', field: 'run_type', value: 'llm' } });
    expect(validateFilter('eq(run_type').ok).toBe(false);
  });

  it('gives every filter field a type rule', () => {
    for (const field of FILTER_FIELDS.values()) expect(FIELD_TYPE_RULES[field.type]).toBeDefined();
  });
});


describe('like', () => {

  it('agrees with the SQL meaning on every pattern and value of a small alphabet', () => {
    const patterns = ['', '%', '_', 'a', 'a%', '%a', '%a%', 'a_b', '%%b', 'a%b%a', '_%_', '%ab%ba%', '\\%a', 'a\\_', 'b%%%', '%_%_%'];
    const values = ['', 'a', 'b', 'ab', 'ba', 'aab', 'abab', 'baba', '%a', 'a_', 'aaaa', 'abba', 'bab', '😀a', 'a😀'];
    for (const pattern of patterns) for (const value of values) expect([pattern, value, likes(pattern, value)]).toEqual([pattern, value, reference(pattern, value)]);
  });

  it('on a uuid field ignores case, as eq and in do', () => {
    const run = { id: 'aaaaaaaa-0000-4000-8000-00000000000b' } as unknown as TraceRunLike;
    expect(compileFilter(parseFilter('like(id, "AAAAAAAA%")'))(run)).toBe(true);
    expect(compileFilter(parseFilter('like(id, "%B")'))(run)).toBe(true);
    expect(likes('RUN%', 'run-1')).toBe(false);
  });

  it('decides a long value that does not match without backtracking through every % (a RegExp took minutes)', () => {
    const long = 'a'.repeat(20_000);
    expect(likes('%%%%%%%%b', long)).toBe(false);
    expect(likes('%a%a%a%a%a%b', long)).toBe(false);
    expect(likes('%a%a%a%a%a%', long)).toBe(true);
  });
});

describe('search over JSON stored as text', () => {
  const stored = { inputs: JSON.stringify({ q: 'He said "hi"\nthen', path: 'C:\\tmp', empty: null, list: [1, 2] }), name: 'run', error: null, outputs: null };
  const finds = (filter: string): boolean => compileFilter(parseFilter(filter))(stored as unknown as TraceRunLike);

  it('finds what the document holds, as it reads unescaped', () => {
    expect(finds('search(inputs, "said \\"hi\\"")')).toBe(true);
    expect(finds('search(inputs, "hi\\"\\nthen")')).toBe(true);
    expect(finds('search(inputs, "c:\\\\tmp")')).toBe(true);
    expect(finds('search("SAID")')).toBe(true);
  });

  it('does not find the JSON syntax around it', () => {
    expect(finds('search(inputs, "\\":\\"")')).toBe(false);
    expect(finds('search(inputs, "1,2")')).toBe(false);
    expect(finds('search(inputs, "null")')).toBe(false);
  });
});
