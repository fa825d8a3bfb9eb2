/** A promise's value, or `'still waiting'` after `ms`: a test fails on what a wait returned instead of hanging. */
export const within = <T>(ms: number, promise: Promise<T>): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);
