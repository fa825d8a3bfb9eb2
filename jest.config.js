/** Jest runs the TypeScript sources directly; integration tests start their own services. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: false }],
  },
  testTimeout: 60000,
  maxWorkers: 2,
};
