/**
 * Jest in native ESM mode (oidc-provider and jose are ESM-only and must really load), with ts-jest
 * transpiling TypeScript only; `tsc -b` does the type checking. Run through `npm test`, which adds
 * `--experimental-vm-modules`.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/packages', '<rootDir>/test-e2e'],
  testMatch: ['**/src/**/*.test.ts', '**/test/**/*.test.ts', '**/test-e2e/**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, isolatedModules: true, tsconfig: 'tsconfig.test.json' }],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
