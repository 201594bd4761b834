// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'migrations/', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'off',
      // Fastify handlers and hooks are async by convention, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  // The indexer turns logs into records in many steps; each stays short enough to read on its own.
  { files: ['src/indexer/**/*.ts'], rules: { 'max-lines-per-function': ['error', { max: 80 }] } },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // The examples import types generated on demand (examples/api.d.ts), so they are outside the
  // project's tsconfig; test/client/typed-client.test.ts type-checks them against fresh types.
  { files: ['examples/**/*.ts'], ...tseslint.configs.disableTypeChecked },
);
