import { expect, it } from 'vitest';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { envWithCatalog } from '../catalog/testing.ts';

describeEachStore('linked targets (v1) and connectors (v2)', (h) => {
  it('links, lists, patches and unlinks a target', async () => {
    const env = await envWithCatalog(h());
    const url = `/${env.envId}/f1/${uniqueId('t')}/linkedTargets`;
    const linked = await h().request({ method: 'POST', url, key: env.envKey, body: { target: { target: 'target-jsonl', config: { destination_path: '/d', token: 'tok-1' } } } });
    expect(linked.json()).toMatchObject({ status: 'linked', target: 'target-jsonl', replaced: false });
    const list = await h().request({ method: 'GET', url, key: env.envKey });
    expect(list.json()[0]).toMatchObject({ target: 'target-jsonl', config: { destination_path: '/d', token: '********' } });
    const patched = await h().request({ method: 'PATCH', url, key: env.envKey, body: { target: 'target-jsonl', config: { destination_path: '/e' } } });
    expect(patched.json()).toMatchObject({ status: 'updated', target: 'target-jsonl', updated: ['config'] });
    const filtered = await h().request({ method: 'GET', url: `${url}?target_name=other`, key: env.envKey });
    expect(filtered.json()).toEqual([]);
    const gone = await h().request({ method: 'DELETE', url: `${url}?target_name=target-jsonl`, key: env.envKey });
    expect(gone.json()).toMatchObject({ status: 'unlinked', target: 'target-jsonl' });
  });

  it('rejects a target the flow does not offer and a schedule on a target', async () => {
    const env = await envWithCatalog(h());
    const url = `/${env.envId}/f1b/t/linkedTargets`;
    expect((await h().request({ method: 'POST', url, key: env.envKey, body: { target: { target: 'target-jsonl' } } })).statusCode).toBe(400);
    const sched = await h().request({ method: 'POST', url: `/${env.envId}/f1/t/linkedTargets`, key: env.envKey, body: { target: { target: 'target-jsonl' }, schedule: { schedule_expression: '0 * * * *' } } });
    expect(sched.statusCode).toBe(400);
  });

  it('links a v2 connector and reads it with config, catalog and connector_id', async () => {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('t');
    const url = `/v2/${env.envId}/f2/${tenant}/linkedConnectors`;
    const res = await h().request({ method: 'POST', url, key: env.envKey, body: { connector: { id: 'sample', config: { api_key: 'ck-9' } }, schedule: { schedule_expression: '0 3 * * *' } } });
    expect(res.json()).toMatchObject({ status: 'linked', connector_id: 'sample', flow_id: 'f2', tenant, schedule: { schedule_expression: '0 3 * * *' } });
    const masked = await h().request({ method: 'GET', url, key: env.envKey });
    expect(masked.json()).toEqual([expect.objectContaining({ id: 'sample', tenant_id: tenant, config: { api_key: '********' }, disconnected: false })]);
    const full = await h().request({ method: 'GET', url: `${url}?config=true&catalog=true&connector_id=sample`, key: env.envKey });
    expect(full.json()[0]).toMatchObject({ config: { api_key: 'ck-9' }, catalog: null });
    expect((await h().request({ method: 'GET', url: `${url}?connector_id=reader`, key: env.envKey })).json()).toEqual([]);
  });

  it('patches, clears state and unlinks a connector', async () => {
    const env = await envWithCatalog(h());
    const url = `/v2/${env.envId}/f2/${uniqueId('t')}/linkedConnectors`;
    await h().request({ method: 'POST', url, key: env.envKey, body: { connector: { id: 'reader', config: { region: 'eu' } } } });
    const patched = await h().request({ method: 'PATCH', url, key: env.envKey, body: { connector_id: 'reader', config: { region: 'us' }, field_map: { a: { name: 'A', selected: [] } } } });
    expect(patched.json()).toMatchObject({ status: 'updated', connector_id: 'reader', updated: ['config', 'field_map'] });
    const cleared = await h().request({ method: 'DELETE', url: `${url}/state?connector_id=reader`, key: env.envKey });
    expect(cleared.json()).toMatchObject({ status: 'cleared', connector_id: 'reader', cleared: 0 });
    expect((await h().request({ method: 'DELETE', url, key: env.envKey })).statusCode).toBe(400);
    const gone = await h().request({ method: 'DELETE', url: `${url}?connector_id=reader`, key: env.envKey });
    expect(gone.json()).toMatchObject({ status: 'unlinked', connector_id: 'reader' });
  });

  it('rejects bad connector links: unoffered, id missing with several offered, v1 flow, unknown flow, bad field map', async () => {
    const env = await envWithCatalog(h());
    const post = (flow: string, body: unknown) => h().request({ method: 'POST', url: `/v2/${env.envId}/${flow}/t/linkedConnectors`, key: env.envKey, body });
    expect((await post('f2', { connector: { id: 'nope' } })).json().Message).toMatch(/"nope" is not offered by flow "f2"/);
    expect((await post('f2', { connector: {} })).json().Message).toMatch(/"connector.id" is required/);
    expect((await post('f2', { connector: { id: 'sample' } })).json().Message).toMatch(/Missing required config.*api_key/);
    expect((await post('f1', { connector: { id: 'sample' } })).json().Message).toMatch(/v1 flow/);
    expect((await post('zz', { connector: { id: 'sample' } })).statusCode).toBe(404);
    expect((await post('f2', { connector: { id: 'reader' }, field_map: [] })).statusCode).toBe(400);
  });
});
