/**
 * The production stack, checked without a Docker engine: docker-compose.yml validates against the
 * Compose Specification's JSON schema (vendored in deploy/compose-spec/, the one `docker compose`
 * uses) with ajv, and follows our rules (composeRules.ts); the Temporal dynamic config carries the
 * dev server's latency settings; the Dockerfile bakes the build id. Broken copies prove each check
 * can fail, naming the path.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEV_SERVER_TUNING } from '../../src/io/temporal/devServer';
import { composeProblems, envOf, type ComposeDocument } from './composeRules';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// Compose files may use YAML merge keys (`<<: *anchor`); docker compose resolves them, so do we.
const parseCompose = (text: string) => parse(text, { merge: true }) as ComposeDocument & Record<string, unknown>;
const schema = JSON.parse(read('deploy/compose-spec/compose-spec.json')) as Record<string, unknown>;
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);

/** Schema errors as `path: message` lines (empty when valid). */
function schemaErrors(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) => {
    const extra =
      (e.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ??
      (e.params as { additionalProperty?: string }).additionalProperty;
    return `${e.instancePath || '/'}: ${e.message ?? e.keyword}${extra ? ` (${extra})` : ''}`;
  });
}

const composeText = read('docker-compose.yml');
const compose = () => parseCompose(composeText);

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    expect(schemaErrors(compose())).toEqual([]);
  });

  it('runs the stack the deployment guide describes: Temporal on PostgreSQL, its UI, PostgreSQL, OpenSearch, an API and two workers', () => {
    const services = compose().services!;
    expect(Object.keys(services).sort()).toEqual(['api', 'opensearch', 'postgres', 'temporal', 'temporal-postgres', 'temporal-ui', 'worker-1', 'worker-2']);
    expect(envOf(services.temporal!)).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-postgres' });
    expect(services.temporal!.volumes).toContain('./deploy/temporal-dynamic-config.yaml:/etc/temporal/config/dynamicconfig/agent-canvas.yaml:ro');
    expect(envOf(services.temporal!).DYNAMIC_CONFIG_FILE_PATH).toBe('config/dynamicconfig/agent-canvas.yaml');
  });

  it('follows our rules: healthchecks or start conditions, pinned images, versioned workers on the API’s task queue', () => {
    expect(composeProblems(compose())).toEqual([]);
  });

  it('rejects a copy the schema forbids, naming the path', () => {
    const broken = compose();
    (broken.services!.api as Record<string, unknown>).ports = 9380; // must be a list
    (broken.services!['worker-1'] as Record<string, unknown>).restart_policy = 'always'; // no such service key
    const errors = schemaErrors(broken);
    expect(errors).toContain('/services/api/ports: must be array');
    expect(errors, errors.join('\n')).toContain('/services/worker-1: must NOT have unevaluated properties (restart_policy)');
  });

  it('rejects copies that break our rules, naming the service', () => {
    const unpinned = compose();
    unpinned.services!.postgres!.image = 'pgvector/pgvector:latest';
    delete unpinned.services!.opensearch!.healthcheck;
    expect(composeProblems(unpinned).sort()).toEqual(
      [
        'services.api.depends_on.opensearch: waits for service_healthy but opensearch has no healthcheck',
        'services.opensearch: neither a healthcheck nor depends_on with conditions',
        'services.postgres.image: pgvector/pgvector:latest uses latest (pin a version)',
        'services.worker-1.depends_on.opensearch: waits for service_healthy but opensearch has no healthcheck',
        'services.worker-2.depends_on.opensearch: waits for service_healthy but opensearch has no healthcheck',
      ].sort(),
    );

    const split = compose();
    split.services!['worker-2'] = {
      ...split.services!['worker-2']!,
      environment: { ...envOf(split.services!['worker-2']!), TASK_QUEUE: 'other', WORKER_BUILD_ID: 'v2' },
    };
    expect(composeProblems(split)).toEqual([
      'services: API and workers poll different task queues (agent-canvas, other)',
      "services.worker-2.environment.WORKER_BUILD_ID: must be ${AGENT_CANVAS_BUILD_ID}, got 'v2'",
    ]);

    const lone = compose();
    delete lone.services!['worker-2'];
    expect(composeProblems(lone)).toEqual(['services: 1 worker(s) (AGENT_CANVAS_ROLE=worker); a production stack runs at least 2']);
  });
});

describe('deploy/temporal-dynamic-config.yaml', () => {
  const config = parse(read('deploy/temporal-dynamic-config.yaml')) as Record<string, Array<{ value: unknown; constraints?: unknown }>>;

  it('is dynamic config: each key a list of {value, constraints?}', () => {
    for (const [key, entries] of Object.entries(config)) {
      expect(Array.isArray(entries), key).toBe(true);
      for (const entry of entries)
        expect(
          Object.keys(entry).every((k) => k === 'value' || k === 'constraints'),
          key,
        ).toBe(true);
    }
  });

  it('carries every latency setting the dev server runs with (DEV_SERVER_TUNING), with the same value', () => {
    const tuning = DEV_SERVER_TUNING.filter((_, i) => DEV_SERVER_TUNING[i - 1] === '--dynamic-config-value');
    expect(tuning.length).toBeGreaterThan(0);
    for (const setting of tuning) {
      const [key, raw] = setting.split('=') as [string, string];
      expect(config[key]?.[0]?.value, key).toEqual(JSON.parse(raw));
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('bakes the build id into the image: a required build argument, a label and the worker’s WORKER_BUILD_ID', () => {
    expect(dockerfile).toMatch(/^ARG BUILD_ID$/m);
    expect(dockerfile).toMatch(/test -n "\$BUILD_ID"/);
    expect(dockerfile).toMatch(/io\.temporal\.worker-build-id="\$\{BUILD_ID\}"/);
    expect(dockerfile).toMatch(/WORKER_BUILD_ID=\$\{BUILD_ID\}/);
  });

  it('builds in stages and runs as the unprivileged node user', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });
});
