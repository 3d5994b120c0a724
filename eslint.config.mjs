import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', '.dynamodb-local/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  { files: ['bin/**', 'scripts/**', 'bench/**', 'test/**', 'lib/local/**'], rules: { 'no-console': 'off' } },
  // The layering rule (README "Architecture"): contract/ is the one module that both the functions
  // and the infrastructure import. Relative escapes (`../../lib/...`) are caught as well as aliases.
  {
    files: ['contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+(lambdas|lib|bin|bench|scripts|test)(/|$)|^#(?!contract/)`,
              message:
                'contract/ imports nothing of the functions, the infrastructure, the tools or the tests.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['lambdas/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+(lib|bin|bench|scripts|test)(/|$)|^#lib/`,
              message:
                'Functions import only the contract (#contract/...) and their own modules, never lib/, bin/, bench/, scripts/ or test/.',
            },
          ],
        },
      ],
    },
  },
  // The TypeScript client is what an integrator copies or installs: it stands alone, typed from
  // openapi.json only (client/generated/schema.d.ts), never from the service's own code.
  {
    files: ['client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+(lambdas|lib|contract|bin|bench|scripts|test)(/|$)|^#`,
              message: 'client/ imports only its own modules and node: built-ins, typed from openapi.json.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['lib/cdk/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+lambdas(/|$)|^#(?!contract/)`,
              message:
                'The CDK names handlers by module-name strings from the contract; it never imports lambdas/.',
            },
            {
              regex: String.raw`^\.\./local(/|$)|^(\.\./)+lib/local(/|$)`,
              message: 'The CDK never imports the local runtime (lib/local/).',
            },
          ],
        },
      ],
    },
  },
  // Tests read JSON bodies of many shapes; `any` there is the honest type of a parsed response.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['jest.config.js', 'test/support/esbuild-transform.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
