// Architecture rules, checked by `npm test`'s lint step (`npm run lint:layers`): the layers, bottom
// to top, and no import cycle anywhere. A module may import its own layer and the ones below it,
// never one above. When a folder moves, update `layers` here; nothing else encodes the layering.
// (eslint.config.js adds the per-file sandbox rules: no Node builtins or I/O libraries in
// workflow-sandbox code, activities imported by workflows as types only.)

/** Bottom-up; each entry lists path prefixes (regex-escaped, relative to the repo root). */
const layers = [
  { name: 'errors', paths: ['src/errors\\.ts'] },
  { name: 'dsl', paths: ['src/dsl/', 'src/runSettings\\.ts'] },
  { name: 'components', paths: ['src/components/'] },
  { name: 'engine', paths: ['src/engine/'] },
  { name: 'io', paths: ['src/store/', 'src/llm/', 'src/knowledge/', 'src/temporal/', 'src/config\\.ts'] },
  { name: 'workflows-activities', paths: ['workflows/', 'activities/'] },
  { name: 'api', paths: ['api/'] },
  { name: 'root', paths: ['src/main\\.ts', 'src/boot/', 'src/logger\\.ts'] },
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
      name: 'layered-file',
      severity: 'error',
      comment: 'Every production module belongs to a layer: add its folder to `layers` in .dependency-cruiser.mjs.',
      from: { path: '^(src|workflows|activities|api)/', pathNot: [tests, pathsOf(layers)] },
      to: {},
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      comment: 'Production code may not import tests, test helpers or benchmarks.',
      from: { path: '^(src|workflows|activities|api)/', pathNot: tests },
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
