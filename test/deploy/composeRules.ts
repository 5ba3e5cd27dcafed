/**
 * What docker-compose.yml must satisfy beyond the Compose Specification's schema: the rules our
 * stack depends on, each failure naming the service and what is wrong.
 */
export interface ComposeService {
  image?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  deploy?: { replicas?: number };
  volumes?: Array<string | { source?: string; target?: string }>;
}

export interface ComposeDocument {
  services?: Record<string, ComposeService>;
}

/** The variable our image tag and WORKER_BUILD_ID both come from. */
export const BUILD_ID_VARIABLE = 'AGENT_CANVAS_BUILD_ID';

export function envOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0]!, e.slice(e.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** The variable a `${NAME...}` expression names, or null when `value` is not one. */
function variableOf(value: string): string | null {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(value)?.[1] ?? null;
}

function tagOf(image: string): string | null {
  if (image.includes('@sha256:')) return image.split('@')[1]!;
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  return colon < 0 ? null : image.slice(colon + 1);
}

function hasHealthcheck(service: ComposeService): boolean {
  return service.healthcheck !== undefined && service.healthcheck.disable !== true && service.healthcheck.test !== undefined;
}

/** Every problem found, one line each (empty: the file follows the rules). */
export function composeProblems(doc: ComposeDocument): string[] {
  const problems: string[] = [];
  const services = doc.services ?? {};
  for (const [name, service] of Object.entries(services)) {
    // Started in order and watched: a service is healthchecked, or waits on conditions of those it needs.
    const deps = service.depends_on ?? {};
    const conditions = Array.isArray(deps) ? [] : Object.entries(deps);
    const waitsOnConditions = conditions.length > 0 && conditions.every(([, d]) => typeof d.condition === 'string');
    if (!hasHealthcheck(service) && !waitsOnConditions) problems.push(`services.${name}: neither a healthcheck nor depends_on with conditions`);
    if (Array.isArray(deps) && deps.length > 0) problems.push(`services.${name}.depends_on: list form has no conditions; use {service: {condition: ...}}`);
    for (const [dep, d] of conditions) {
      if (!services[dep]) problems.push(`services.${name}.depends_on.${dep}: no such service`);
      else if (d.condition === 'service_healthy' && !hasHealthcheck(services[dep]!))
        problems.push(`services.${name}.depends_on.${dep}: waits for service_healthy but ${dep} has no healthcheck`);
    }
    // Pinned images: a tag that is not `latest`, or a digest; a variable tag only for our build id.
    if (!service.image) problems.push(`services.${name}.image: missing (an image tag is what gets deployed and rolled back)`);
    else {
      const tag = tagOf(service.image);
      if (tag === null) problems.push(`services.${name}.image: ${service.image} has no tag (pin a version)`);
      else if (tag === 'latest') problems.push(`services.${name}.image: ${service.image} uses latest (pin a version)`);
      else if (tag.includes('$') && variableOf(tag) !== BUILD_ID_VARIABLE)
        problems.push(`services.${name}.image: tag ${tag} is a variable other than \${${BUILD_ID_VARIABLE}}`);
    }
  }

  // Workers: two or more, one task queue shared with the API, each a versioned deployment whose build id is its image tag.
  const role = (s: ComposeService) => envOf(s).AGENT_CANVAS_ROLE ?? 'all';
  const workers = Object.entries(services).filter(([, s]) => role(s) === 'worker');
  const apis = Object.entries(services).filter(([, s]) => role(s) === 'api');
  const workerCount = workers.reduce((n, [, s]) => n + (s.deploy?.replicas ?? 1), 0);
  if (workerCount < 2) problems.push(`services: ${workerCount} worker(s) (AGENT_CANVAS_ROLE=worker); a production stack runs at least 2`);
  if (apis.length === 0) problems.push('services: no API service (AGENT_CANVAS_ROLE=api)');
  const queues = new Set([...workers, ...apis].map(([, s]) => envOf(s).TASK_QUEUE ?? 'agent-canvas'));
  if (queues.size > 1) problems.push(`services: API and workers poll different task queues (${[...queues].join(', ')})`);
  for (const [name, service] of workers) {
    const env = envOf(service);
    if (env.WORKER_VERSIONING !== 'true') problems.push(`services.${name}.environment.WORKER_VERSIONING: must be 'true' (runs pinned to their version)`);
    if (!env.WORKER_DEPLOYMENT_NAME) problems.push(`services.${name}.environment.WORKER_DEPLOYMENT_NAME: missing`);
    const buildId = env.WORKER_BUILD_ID ?? '';
    if (variableOf(buildId) !== BUILD_ID_VARIABLE)
      problems.push(`services.${name}.environment.WORKER_BUILD_ID: must be \${${BUILD_ID_VARIABLE}}, got '${buildId}'`);
    const tag = service.image ? tagOf(service.image) : null;
    if (tag === null || variableOf(tag) !== BUILD_ID_VARIABLE) problems.push(`services.${name}.image: the tag must be the build id \${${BUILD_ID_VARIABLE}}`);
    if (!env.METRICS_PORT || env.METRICS_PORT === '0') problems.push(`services.${name}.environment.METRICS_PORT: a worker must serve /metrics`);
  }
  return problems;
}
