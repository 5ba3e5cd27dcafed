/** SEARCH_BACKEND and OPENSEARCH_* as src/io/config.ts reads them: the store by default, OpenSearch when asked, bad values named. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/io/config';

const load = (env: Record<string, string>) => loadConfig(env, '/tmp/agent-canvas');

describe('search backend configuration', () => {
  it('searches the store unless told otherwise', () => {
    expect(load({}).search).toEqual({ backend: 'postgres' });
  });

  it('reads the OpenSearch settings', () => {
    expect(
      load({
        SEARCH_BACKEND: 'opensearch',
        OPENSEARCH_URL: 'https://search.internal:9200',
        OPENSEARCH_USERNAME: 'admin',
        OPENSEARCH_PASSWORD: 'pw',
        OPENSEARCH_INDEX_PREFIX: 'prod.kb',
      }).search,
    ).toEqual({
      backend: 'opensearch',
      url: 'https://search.internal:9200',
      username: 'admin',
      password: 'pw',
      indexPrefix: 'prod.kb',
      refresh: 'wait_for',
    });
    expect(load({ SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'http://127.0.0.1:9200' }).search).toMatchObject({
      indexPrefix: 'agent-canvas',
      username: undefined,
    });
    expect(load({ SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'http://127.0.0.1:9200', OPENSEARCH_REFRESH: 'true' }).search).toMatchObject({
      refresh: 'true',
    });
  });

  it('names the variable that is wrong', () => {
    expect(() => load({ SEARCH_BACKEND: 'opensearch' })).toThrow(/OPENSEARCH_URL: required when SEARCH_BACKEND=opensearch/);
    expect(() => load({ SEARCH_BACKEND: 'elastic' })).toThrow(/SEARCH_BACKEND/);
    expect(() => load({ SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'not a url' })).toThrow(/OPENSEARCH_URL: must be a URL/);
    expect(() => load({ SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'http://x:9200', OPENSEARCH_INDEX_PREFIX: 'Agent Canvas' })).toThrow(
      /OPENSEARCH_INDEX_PREFIX/,
    );
    expect(() => load({ SEARCH_BACKEND: 'opensearch', OPENSEARCH_URL: 'http://x:9200', OPENSEARCH_REFRESH: 'false' })).toThrow(/OPENSEARCH_REFRESH/);
  });
});
