// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules (typescript-eslint's recommendedTypeChecked), over every source, test and
    // bench file (tsconfig.test.json, bench/tsconfig.json): among them a promise nobody awaits or
    // handles, a promise where a callback's result is ignored, and a value of type `any` flowing
    // on unchecked.
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './bench/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Configuration is read once, through each service's zod schema: only the
    // config modules see the environment; everything else is given the parsed values.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/config.ts', 'packages/*/src/cli/seed-config.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'read settings in src/config.ts (or cli/seed-config.ts) and pass the parsed config',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'scripts/**', 'test-e2e/**', '**/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
