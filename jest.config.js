/** Jest: e2e specs under test/, unit specs beside the code they test. */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  testRegex: '(src|test)/.*\\.(e2e-)?spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.(t|j)s$': '<rootDir>/test/setup/transform.js' },
  // NestJS 12 and some of its dependencies ship ESM only: the transformer
  // compiles those and passes CommonJS packages through.
  transformIgnorePatterns: [],
  setupFiles: ['<rootDir>/test/setup/env-defaults.ts'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 30000,
};
