/** The final answer the post-deploy check reads from a run's values, and the inputs it takes. */
import { answerText, inputProblem } from '../../lib/provider/resources/deployment/smoke-test-run';

describe('smoke_test answer', () => {
  test('is the last message\'s content: a string, or the text parts of a content list', () => {
    expect(answerText({ messages: [{ type: 'human', content: 'ping' }, { type: 'ai', content: 'You said: ping' }] })).toBe('You said: ping');
    const parts = [{ type: 'text', text: 'pong ' }, { type: 'image_url', image_url: 'https://example.com/a.png' }, 'and more'];
    expect(answerText({ messages: [{ type: 'ai', content: parts }] })).toBe('pong and more');
  });

  test('is the values as JSON when they hold no message', () => {
    expect(answerText({ summary: 'all good', messages: [] })).toBe('{"summary":"all good","messages":[]}');
    expect(answerText({ report: 'done' })).toBe('{"report":"done"}');
  });

  test('takes a JSON object as input, nothing else', () => {
    expect(inputProblem('{"messages": []}')).toBeUndefined();
    expect(inputProblem('[1, 2]')).toMatch(/must be a JSON object/);
    expect(inputProblem('null')).toMatch(/must be a JSON object/);
    expect(inputProblem('{messages:')).toMatch(/is not JSON/);
  });
});
