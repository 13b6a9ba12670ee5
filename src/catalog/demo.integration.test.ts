import { expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { demoSeeders, ensureDemoEnvironment } from '../demo.ts';
import { resolveJobPlan } from '../links/job-plan.ts';
import { describeEachStore } from '../../test/harness.ts';
import '../routes.ts';

describeEachStore('demo environment', (h) => {
  it('the quickstart seeds the demo catalog (when it creates the demo environment)', async () => {
    const setup = await ensureDemoEnvironment(h().ctx);
    if (!setup) return; // the shared PostgreSQL schema already holds other suites' environments
    const flows = await h().request({ method: 'GET', url: '/demo/flows/supported', key: setup.publicKey });
    expect(flows.json().map((f: { id: string; version: number }) => [f.id, f.version])).toEqual([['demo-v1', 1], ['demo-v2', 2]]);
  });

  it('gets a v1 flow (tap-sample → target-jsonl) and a v2 flow (connector sample), ready to link', async () => {
    const env = await h().createEnv('demo');
    for (const seed of demoSeeders) await seed(h().ctx, env.envId);
    const v1 = await h().request({ method: 'POST', url: `/${env.envId}/demo-v1/newcomer/linkedSources`, key: env.publicKey, body: { source: { tap: 'tap-sample', config: { api_key: 'anything' } } } });
    expect(v1.statusCode).toBe(200);
    const v2 = await h().request({ method: 'POST', url: `/v2/${env.envId}/demo-v2/newcomer/linkedConnectors`, key: env.publicKey, body: { connector: { id: 'sample', config: { api_key: 'anything' } } } });
    expect(v2.statusCode).toBe(200);
    const scope = systemTenantScope(env.envId, 'newcomer');
    const plan1 = await resolveJobPlan(h().ctx, scope, 'demo-v1', {});
    expect([plan1.source.run, plan1.target?.run]).toEqual([{ builtin: 'tap-sample' }, { builtin: 'target-jsonl' }]);
    const read = await resolveJobPlan(h().ctx, scope, 'demo-v2', { connectorId: 'sample', jobType: 'read' });
    expect([read.source.run, read.target?.run]).toEqual([{ builtin: 'tap-sample' }, { builtin: 'target-jsonl' }]);
    const write = await resolveJobPlan(h().ctx, scope, 'demo-v2', { connectorId: 'sample', jobType: 'write' });
    expect([write.source.run, write.target?.run, write.target?.config.api_key]).toEqual([{ builtin: 'tap-sample' }, { builtin: 'target-jsonl' }, 'anything']);
  });
});
