// Test helpers of the connections domain: a small catalog with every feature the
// tests need (required and password params, OAuth entry with a client secret).
// No discovery at link time (`discover_on_link: false`): suites that link do not get
// background discoveries; src/links/discovery.integration.test.ts covers them.
import type { Harness, TestEnv } from '../../test/harness.ts';

const manual = { discover_on_link: false };

export const TEST_CATALOG = {
  availableSources: [
    {
      tap: 'tap-sample', label: 'Sample', domain: 'example.com', tags: ['crm'], icon: 'https://example.com/i.png',
      connect_ui_params: {
        api_key: { label: 'API key', description: 'Key', type: 'password' },
        subdomain: { label: 'Subdomain', description: 'Account' },
        record_count: { label: 'Records', description: 'How many', required: false },
      },
      config: { start_date: '2024-01-01T00:00:00Z' },
      fieldMap: { contacts: { name: 'Contact', selected: ['id', 'email'] } },
      run: { builtin: 'tap-sample' }, ...manual,
    },
    {
      tap: 'tap-oauth', label: 'OAuth CRM', type: 'oauth', tap_url: 'https://auth.example.com/authorize',
      auth_url: 'https://auth.example.com/token', client_id: 'cid-123', client_secret: 'super-client-secret',
      run: { command: '/usr/bin/tap-oauth', args: ['--verbose'] }, ...manual,
    },
    { tap: 'tap-unoffered', run: { builtin: 'tap-sample' }, ...manual },
  ],
  availableTargets: [{ target: 'target-jsonl', label: 'JSONL', run: { builtin: 'target-jsonl' } }],
  availableConnectors: [
    {
      id: 'sample', label: 'Sample', connect_ui_params: { api_key: { label: 'API key', description: 'Key', type: 'password' } },
      read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' }, ...manual,
    },
    { id: 'reader', read: { builtin: 'tap-sample' }, ...manual },
  ],
  flows: [
    { id: 'f1', name: 'Flow one', taps: ['tap-sample', 'tap-oauth'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: { destination_path: '/tmp/out', password: 'export-secret' } } },
    { id: 'f1b', name: 'Flow one b', taps: ['tap-sample'], targets: [] },
    { id: 'f2', name: 'Flow two', version: 2, connectors: ['sample', 'reader'], widgetOptions: { allowRunWriteJobs: true }, export: { read: { connector: 'sample' }, write: { connector: 'reader' } } },
  ],
};

/** A fresh environment with TEST_CATALOG applied. */
export async function envWithCatalog(h: Harness, catalog: unknown = TEST_CATALOG): Promise<TestEnv> {
  const env = await h.createEnv();
  const res = await h.request({ method: 'PUT', url: `/admin/environments/${env.envId}/catalog`, key: env.envKey, body: catalog });
  if (res.statusCode !== 200) throw new Error(`catalog PUT failed: ${res.statusCode} ${res.body}`);
  return env;
}

/** A valid tap-sample link body. */
export function sampleLink(extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  return { source: { tap: 'tap-sample', config: { api_key: 'sk-live-123', subdomain: 'acme', ...config } }, ...extra };
}
