// Lint rules, including the workflow sandbox: the pure core (src/core: DSL, components, engine) and workflows may
// not import Node builtins or I/O libraries; workflows see activities as types only. The layer
// order and the no-cycle rule live in .dependency-cruiser.mjs. See docs/ARCHITECTURE.md.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const ioLibraries = [
  'openai',
  'openai/*',
  'pg',
  'pg-*',
  'fastify',
  'fastify-*',
  '@fastify/*',
  '@electric-sql/*',
  'pino',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];

/** no-restricted-imports options forbidding `groups` (with a message each). */
function forbid(...groups) {
  return [
    'error',
    {
      paths: groups.flatMap((g) => (g.paths ?? []).map((name) => ({ name, message: g.message }))),
      patterns: groups.filter((g) => g.patterns).map((g) => ({ group: g.patterns, message: g.message, allowTypeImports: g.allowTypeImports ?? false })),
    },
  ];
}

const pure = { paths: nodeBuiltins, message: 'The pure core (src/core) and workflows run in the workflow sandbox: no Node builtins.' };
const noTestKit = {
  paths: ['@temporalio/testing'],
  message: '@temporalio/testing is a dev dependency (tests and benchmarks); production code starts the dev server with the CLI.',
};
const noIo = { patterns: ioLibraries, message: 'The pure core may not import I/O libraries; I/O lives in src/io, used by activities/ and api/.' };

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.data/**', 'dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', '.dependency-cruiser.mjs', 'prettier.config.mjs', 'scripts/*.mjs', 'src/io/store/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  { files: ['src/core/**'], ignores: ['src/core/**/*.test.ts'], rules: { 'no-restricted-imports': forbid(pure, noIo) } },
  {
    files: ['workflows/**'],
    rules: {
      'no-restricted-imports': forbid(
        pure,
        noIo,
        { patterns: ['../activities', '../activities/*'], allowTypeImports: true, message: 'Workflows import activities as types only (import type).' },
        { patterns: ['../src/io', '../src/io/*'], message: 'Workflows run in the sandbox: do I/O through activities.' },
      ),
    },
  },
  { files: ['src/io/**', 'server/**', 'api/**', 'activities/**'], ignores: ['**/*.test.ts'], rules: { 'no-restricted-imports': forbid(noTestKit) } },
  { files: ['test/**', 'src/**/*.test.ts', 'bench/**'], rules: { '@typescript-eslint/no-non-null-assertion': 'off' } },
  // The run view (web/): plain browser ES modules, no type information, browser globals only.
  {
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'sessionStorage', 'fetch', 'Node', 'TextDecoder', 'URLSearchParams', 'requestAnimationFrame', 'console']
          .concat(['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'AbortController'])
          .map((g) => [g, 'readonly']),
      ),
    },
  },
);
