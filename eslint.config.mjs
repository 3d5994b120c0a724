import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The folders of lambdas/ that hold handlers, one file per entry point (contract/ names them), by
 * kind: API routes, non-production triggers, state machine tasks, EventBridge schedules, queue and
 * stream consumers, the processors' inbound webhooks. The README's layer picture lists them (test/unit/docs-sync.test.ts).
 */
export const HANDLER_FOLDERS = [
  'groups',
  'payments',
  'series',
  'payors',
  'methods',
  'transactions',
  'settings',
  'return-rates',
  'events',
  'webhooks',
  'triggers',
  'process-group',
  'void-or-refund',
  'scheduled',
  'notifications',
  'processor-events',
];

/** What no file of lambdas/ imports: the infrastructure, the tools and the tests. */
const OUTSIDE_THE_FUNCTIONS = {
  regex: String.raw`^(\.\./)+(lib|bin|bench|scripts|test)(/|$)|^#(lib|support)/`,
  message:
    'Functions import only the contract (#contract/...) and their own modules, never lib/, bin/, bench/, scripts/ or test/.',
};

/** Inside lambdas/ another folder is reached by its layer's alias, which names the layer crossed. */
const RELATIVE_CROSSING = {
  regex: String.raw`^(\.\./)+(?!\.\./|(lib|bin|bench|scripts|test)(/|$))|^#lambdas/`,
  message:
    "Inside lambdas/, import another folder through its layer's alias (#core/..., #shared/...), not a ../ path or #lambdas/.",
};

const aliases = (...folders) => String.raw`^#(${folders.join('|')})/`;

/**
 * The layers of lambdas/, from the top: each may import the ones below it, never one above (nor,
 * for handler folders, a sibling module: they hold handlers only). store/ and processor/ are
 * adapters side by side: store/ never imports processor/, and processor/ only the table's day
 * index (the sandbox's ledger is listed by time through it); domain/ is rules without AWS.
 */
const LAYERS = [
  {
    folders: HANDLER_FOLDERS,
    forbidden: [
      {
        regex: aliases('store', 'processor'),
        message: 'Handlers reach stores and the processor through core/ (#core/...), never directly.',
      },
      {
        regex: String.raw`^\./`,
        message: 'Handler folders hold handlers only: a helper module belongs in core/ or shared/.',
      },
    ],
  },
  {
    folders: ['core'],
    forbidden: [
      {
        regex: String.raw`^#store/keys$`,
        message:
          "The table's keys are store/'s own: core/ asks a store (its functions and positions), never builds a key.",
      },
    ],
  },
  {
    folders: ['store'],
    forbidden: [
      {
        regex: aliases('core', 'processor'),
        message: 'store/ imports only domain/, generated/, shared/ and the contract.',
      },
    ],
  },
  {
    folders: ['processor'],
    forbidden: [
      {
        // One exception: the sandbox keeps its ledger in the table, listed by time through the
        // table's day index (store/day-index.ts, which imports nothing of the service's stores).
        regex: String.raw`^#core/|^#store/(?!day-index$)`,
        message:
          'processor/ imports only domain/, generated/, shared/, the contract and the day index (#store/day-index).',
      },
    ],
  },
  {
    folders: ['domain'],
    forbidden: [
      {
        regex: aliases('core', 'store', 'processor'),
        message: 'domain/ imports only generated/, shared/ and the contract.',
      },
      {
        regex: String.raw`^(@aws-sdk|@aws-lambda-powertools|@middy)/|^aws-lambda$`,
        message: 'domain/ is rules without AWS: no AWS SDK, Lambda or middleware import.',
      },
    ],
  },
  {
    folders: ['generated'],
    forbidden: [
      {
        regex: aliases('core', 'store', 'processor', 'domain'),
        message: 'Generated code imports only shared/ and the contract.',
      },
    ],
  },
  {
    folders: ['shared'],
    forbidden: [
      {
        regex: aliases('core', 'store', 'processor', 'domain', 'generated'),
        message:
          'shared/ is mechanics: it imports nothing of core/, store/, processor/, domain/ or generated/.',
      },
    ],
  },
];

/** The folders of lambdas/, layer by layer from the top (the handler folders first). */
export const FUNCTION_LAYERS = LAYERS.map(({ folders }) => folders);

/**
 * The clock rule: every file of lambdas/ reads the time, pauses and bounds a wait through the one
 * clock (lambdas/shared/clock.ts: clock.now(), clock.nowMs(), sleep, withTimeout), the only file
 * that touches Date's time or a timer, so that a test that sets the clock sets it for all of them.
 */
const OWN_TIMER =
  'Pause with sleep and bound a wait with withTimeout (#shared/clock), not a timer of its own.';
const CLOCK_RULE = {
  files: ['lambdas/**'],
  ignores: ['lambdas/shared/clock.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: 'Read the time from the one clock: clock.now() (#shared/clock), not new Date().',
      },
      {
        selector: "MemberExpression[object.name='Date'][property.name='now']",
        message: 'Read the time from the one clock: clock.nowMs() (#shared/clock), not Date.now.',
      },
      { selector: 'CallExpression[callee.name=/^set(Timeout|Interval)$/]', message: OWN_TIMER },
      {
        selector:
          'MemberExpression[object.name=/^(globalThis|global)$/][property.name=/^set(Timeout|Interval)$/]',
        message: OWN_TIMER,
      },
      { selector: 'ImportDeclaration[source.value=/^(node:)?timers(\\/promises)?$/]', message: OWN_TIMER },
    ],
  },
};

/** One no-restricted-imports setting per layer, each with the rules every file of lambdas/ keeps. */
function functionLayers() {
  const layered = LAYERS.map(({ folders, forbidden }) => ({
    files: folders.map((folder) => `lambdas/${folder}/**`),
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [OUTSIDE_THE_FUNCTIONS, RELATIVE_CROSSING, ...forbidden] },
      ],
    },
  }));
  return [
    {
      files: ['lambdas/**'],
      rules: { 'no-restricted-imports': ['error', { patterns: [OUTSIDE_THE_FUNCTIONS, RELATIVE_CROSSING] }] },
    },
    ...layered,
  ];
}

export default tseslint.config(
  {
    ignores: [
      ...['node_modules/', 'cdk.out/', '.data/', '.dynamodb-local/', 'coverage/', 'client/dist/'],
      // Generated, and checked to be exactly what their generators write (npm run openapi -- --check,
      // test/unit/client-types.test.ts): the validators already disable every rule (the layer rules
      // of lambdas/generated/ among them), and parsing their 980 KB alone was 6 CPU-s of the lint.
      ...['lambdas/generated/validators.ts', 'client/generated/'],
    ],
  },
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
  // Inside lambdas/ (README "Layers"): handler folders → core/ → store/, processor/ → domain/ →
  // generated/ → shared/, each importing only the folders after it (and the contract).
  ...functionLayers(),
  CLOCK_RULE,
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
  // Every tier imports the code, and test/support/, through the aliases the code itself uses.
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+(lambdas|contract|lib|support)(/|$)`,
              message:
                'Tests import the code and test/support/ through #aliases (#core/..., #lib/..., #support/...).',
            },
            {
              regex: String.raw`^(\.\./)+client/?$`,
              message:
                "The client's source is client/index: '../client' is its package, which names client/dist/ once a test has packed it (stale, and a second ScheduledPaymentsClient type).",
            },
            {
              regex: String.raw`^#lambdas/(core|domain|store|processor|shared|generated)/`,
              message:
                'A layer of lambdas/ is imported through its own alias (#core/...); #lambdas/ names handlers.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'jest.config.js',
      'test/support/esbuild-transform.js',
      'test/support/prompt-exit-environment.js',
      'test/support/test-sequencer.js',
    ],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
