import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { systemTenantScope } from '../auth/scope.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';
import { createJob } from '../jobs/service.ts';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { rotateSecrets, SEALED_COLUMNS } from './rotate.ts';
import { createSecretBox, generateMasterKey, parseMasterKey } from './secret-box.ts';

describeEachStore('secrets rotate', (h) => {
  it('re-seals every sealed column of the environment with the current key', async () => {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('t');
    const req = (method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown) => h().request({ method, url, key: env.envKey, body });
    await req('POST', `/${env.envId}/f1/${tenant}/linkedSources`, sampleLink());
    await req('PATCH', `/admin/environments/${env.envId}`, { webhook_secret: 'whsec-rotate-me', webhook_url: 'http://127.0.0.1:9/hook' });
    await req('PUT', `/${env.envId}/f1/${tenant}/jobs/schedule`, { schedule_expression: '0 * * * *', override_field_map: { a: { name: 'A', selected: [] } } });
    const scope = systemTenantScope(env.envId, tenant);
    const hook = { url: 'http://127.0.0.1:9/life', secret: 'life-secret' };
    await createJob(h().ctx, scope, 'f1', { tap: 'tap-sample', override_lifecycle_webhook: hook }, { scheduled: false, startedBy: 't' });
    await createJob(h().ctx, scope, 'f1', { tap: 'tap-sample', queue_if_active_job: true }, { scheduled: false, startedBy: 't', overlap: 'queue' });

    const oldKey = h().ctx.config.secretKey as string;
    const newKey = generateMasterKey();
    const rotating = createSecretBox(parseMasterKey(newKey), [parseMasterKey(oldKey)]);
    const report = await rotateSecrets({ ...h().ctx, secrets: rotating });
    for (const col of SEALED_COLUMNS) expect(report[`${col.table}.${col.column}`]?.resealed, `${col.table}.${col.column}`).toBeGreaterThan(0);

    // Only the new key is needed now, for every sealed value of this environment.
    const onlyNew = createSecretBox(parseMasterKey(newKey));
    for (const col of SEALED_COLUMNS) {
      const rows = await sql<Record<string, string | null>>`select ${sql.ref(col.column)} as v from ${sql.table(col.table)} where env_id = ${env.envId}`.execute(h().ctx.db.kysely);
      for (const { v } of rows.rows) {
        if (v === null) continue;
        const sealed = col.table === 'flows' ? JSON.parse(v).configs_enc : v;
        if (sealed === null) continue;
        expect(onlyNew.isStale(sealed), col.table).toBe(false);
        expect(() => onlyNew.open(sealed)).not.toThrow();
      }
    }
    expect(onlyNew.openJson<Record<string, string>>(
      (await h().ctx.db.kysely.selectFrom('links').select('config_enc').where('env_id', '=', env.envId).executeTakeFirstOrThrow()).config_enc as string,
    ).api_key).toBe('sk-live-123');

    const again = await rotateSecrets({ ...h().ctx, secrets: onlyNew });
    expect(Object.values(again).every((r) => r.resealed === 0)).toBe(true);
  });
});
