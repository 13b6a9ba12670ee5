import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachStore, uniqueId } from '../../test/harness.ts';
import { envWithCatalog, sampleLink } from '../catalog/testing.ts';

const SECRETS = ['sk-live-123', 'patched-secret-value', 'connector-secret-77', 'super-client-secret', 'export-secret', 'rt-oauth-secret'];
const TABLES = ['system_settings', 'environments', 'api_keys', 'catalog_entries', 'flows', 'tenants', 'links', 'jobs', 'queued_jobs', 'schedules', 'webhook_events'];

describeEachStore('credentials at rest', (h) => {
  it('no credential is stored in clear, in any row or in the database files', async () => {
    const env = await envWithCatalog(h());
    const tenant = uniqueId('t');
    const post = (url: string, body: unknown) => h().request({ method: 'POST', url, key: env.envKey, body });
    await post(`/${env.envId}/f1/${tenant}/linkedSources`, sampleLink());
    await h().request({ method: 'PATCH', url: `/${env.envId}/f1/${tenant}/linkedSources`, key: env.envKey, body: { tap: 'tap-sample', config: { password: 'patched-secret-value' } } });
    await post(`/${env.envId}/f1/${tenant}/linkedSources`, { source: { tap: 'tap-oauth', config: { refresh_token: 'rt-oauth-secret' } } });
    await post(`/v2/${env.envId}/f2/${tenant}/linkedConnectors`, { connector: { id: 'sample', config: { api_key: 'connector-secret-77' } } });
    const read = await h().request({ method: 'GET', url: `/${env.envId}/f1/${tenant}/linkedSources?config=true`, key: env.envKey });
    expect(read.body).toContain('patched-secret-value');

    const dump: string[] = [];
    for (const table of TABLES) {
      const rows = await sql`select * from ${sql.table(table)}`.execute(h().ctx.db.kysely);
      dump.push(JSON.stringify(rows.rows));
    }
    const all = dump.join('\n');
    expect(all).toContain(tenant);
    for (const secret of SECRETS) expect(all, secret).not.toContain(secret);

    if (h().store === 'sqlite') {
      const files = fs.readdirSync(h().dataDir).filter((f) => f.startsWith('tapline.db'));
      expect(files).toContain('tapline.db');
      const bytes = Buffer.concat(files.map((f) => fs.readFileSync(path.join(h().dataDir, f))));
      expect(bytes.includes(Buffer.from(tenant))).toBe(true);
      for (const secret of SECRETS) expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
    }
  });
});
