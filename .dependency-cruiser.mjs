// Architecture rules, checked by `npm test`'s lint step (`npm run lint:layers`): the layers, bottom
// to top, and no import cycle anywhere. A module may import its own layer and the ones below it,
// never one above. When a folder moves, update `layers` here; nothing else encodes the layering.
// (eslint.config.js adds the per-file sandbox rules: no Node builtins or I/O libraries in
// workflow-sandbox code, activities imported by workflows as types only.)

/** Bottom-up; each entry lists path prefixes (regex-escaped, relative to the repo root). */
const layers = [
  { name: 'errors', paths: ['src/errors\\.ts'] },
  { name: 'dsl', paths: ['src/core/dsl/', 'src/core/runSettings\\.ts'] },
  { name: 'components', paths: ['src/core/components/', 'src/core/pipeline/'] },
  { name: 'engine', paths: ['src/core/engine/', 'src/core/searchAttributes\\.ts'] },
  // src/io's own floors: pure text and format helpers; plumbing that needs nothing else of src/io;
  // the store (all SQL); the clients of outside services; knowledge; a run's files (read with
  // knowledge's document parsers); the tools, built on all of those. Knowledge, files and tools
  // each get a floor, so a loop between those folders is an upward import.
  { name: 'io-text', paths: ['src/io/text/'] },
  { name: 'io-platform', paths: ['src/io/net/', 'src/io/metrics/', 'src/io/temporal/', 'src/io/log\\.ts', 'src/io/config\\.ts'] },
  { name: 'io-store', paths: ['src/io/store/'] },
  { name: 'io-clients', paths: ['src/io/llm/', 'src/io/mcp/', 'src/io/browser/'] },
  { name: 'io-knowledge', paths: ['src/io/knowledge/'] },
  { name: 'io-files', paths: ['src/io/files/'] },
  { name: 'io-tools', paths: ['src/io/tools/'] },
  { name: 'workflows-activities', paths: ['workflows/', 'activities/'] },
  { name: 'api', paths: ['api/'] },
  { name: 'root', paths: ['server/'] },
];

const tests = '(^test/|^bench/|\\.test\\.ts$)';
const pathsOf = (group) => `^(${group.flatMap((layer) => layer.paths).join('|')})`;

const upward = layers.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}`,
  severity: 'error',
  comment: `${layer.name} may not import from the layers above it (${layers
    .slice(index + 1)
    .map((above) => above.name)
    .join(', ')}); see docs/ARCHITECTURE.md.`,
  from: { path: pathsOf([layer]), pathNot: tests },
  to: { path: pathsOf(layers.slice(index + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...upward,
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Import cycles (type-only ones included) tangle layers; move the shared piece into a module both can import.',
      from: { pathNot: '^node_modules/' },
      to: { circular: true },
    },
    {
      name: 'store-owns-sql',
      severity: 'error',
      comment:
        'SQL lives in src/io/store: outside it, code uses the Store contract (contract.ts, store.ts, the *Types.ts files, time.ts, apiKeys.ts), never the database handle, repositories or SQL helpers.',
      from: { pathNot: ['^src/io/store/', tests] },
      to: { path: '^src/io/store/', pathNot: '^src/io/store/(contract|store|time|apiKeys|[a-zA-Z]+Types)\\.ts$' },
    },
    {
      name: 'layered-file',
      severity: 'error',
      comment: 'Every production module belongs to a layer: add its folder to `layers` in .dependency-cruiser.mjs.',
      from: { path: '^(src|workflows|activities|api|server)/', pathNot: [tests, pathsOf(layers)] },
      to: {},
    },
    {
      name: 'api-not-activities',
      severity: 'error',
      comment: 'The API uses the shared I/O layer (src/io) directly; activities are thin Temporal wrappers only the worker registers.',
      from: { path: '^api/', pathNot: tests },
      to: { path: '^activities/' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      comment: 'Production code may not import tests, test helpers or benchmarks.',
      from: { path: '^(src|workflows|activities|api|server)/', pathNot: tests },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules/' },
    // Type-only imports count: a type import upward is still a layer violation, and a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
