// /openapi.json documents every operation of the API description (and ours).
import { expect, it } from 'vitest';
import { describeEachStore } from '../test/harness.ts';

const SPEC_OPERATIONS: Array<[string, string]> = [
  ['get', '/{env_id}/{flow_id}/{tenant}/linkedSources'],
  ['post', '/{env_id}/{flow_id}/{tenant}/linkedSources'],
  ['patch', '/{env_id}/{flow_id}/{tenant}/linkedSources'],
  ['delete', '/{env_id}/{flow_id}/{tenant}/linkedSources'],
  ['delete', '/{env_id}/{flow_id}/{tenant}/linkedSources/state'],
  ['get', '/{env_id}/availableSources'],
  ['get', '/{env_id}/flows/supported'],
  ['get', '/{env_id}/{flow_id}/{tenant}/jobs'],
  ['post', '/v2/{env_id}/{flow_id}/{tenant}/jobs'],
  ['post', '/{env_id}/{flow_id}/{tenant}/jobs/kill'],
  ['put', '/{env_id}/{flow_id}/{tenant}/jobs/schedule'],
  ['post', '/v2/{env_id}/{flow_id}/{tenant}/linkedConnectors'],
  ['get', '/v2/{env_id}/availableConnectors'],
  ['delete', '/tenant/{env_id}/{tenant}'],
];

describeEachStore('OpenAPI document', (h) => {
  it('lists every operation of the API description with its parameters', async () => {
    const doc = (await h().request({ method: 'GET', url: '/openapi.json' })).json();
    for (const [method, path] of SPEC_OPERATIONS) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method.toUpperCase()} ${path}`).toBeDefined();
      const names = (operation.parameters ?? []).map((p: { name: string }) => p.name);
      for (const param of path.match(/\{(\w+)\}/g) ?? []) expect(names).toContain(param.slice(1, -1));
    }
    const linked = doc.paths['/{env_id}/{flow_id}/{tenant}/linkedSources'];
    const query = linked.get.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
    expect(query).toEqual(expect.arrayContaining(['token', 'config', 'catalog']));
    expect(linked.post.requestBody).toBeDefined();
  });
});
