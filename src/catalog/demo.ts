// The quickstart's `demo` environment: a v1 flow (tenants link tap-sample, the flow
// exports to target-jsonl) and a v2 flow (connector `sample`: reads like tap-sample,
// writes like target-jsonl), so a newcomer can link and run jobs at once.
import { systemEnvScope } from '../auth/scope.ts';
import { demoSeeders } from '../demo.ts';
import { applyCatalogDocument } from './bulk.ts';

const SAMPLE_PARAMS = {
  api_key: { label: 'API key', description: 'Any text: the sample source accepts every key', type: 'password' },
  record_count: { label: 'Records per stream', description: 'How many records each stream has (default 100)', required: false },
};

export const DEMO_CATALOG = {
  availableSources: [{
    tap: 'tap-sample', label: 'Sample CRM', domain: 'example.com', type: 'api', tags: ['crm', 'demo'], icon: '',
    connect_ui_params: SAMPLE_PARAMS, config: { start_date: '2024-01-01T00:00:00Z' }, run: { builtin: 'tap-sample' },
  }],
  availableTargets: [{
    target: 'target-jsonl', label: 'JSON Lines files', domain: 'jsonlines.org', type: 'api', tags: ['files', 'demo'], icon: '',
    run: { builtin: 'target-jsonl' },
  }],
  availableConnectors: [{
    id: 'sample', label: 'Sample CRM', domain: 'example.com', type: 'api', tags: ['crm', 'demo'], icon: '',
    connect_ui_params: SAMPLE_PARAMS, config: { start_date: '2024-01-01T00:00:00Z' },
    read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' }, job_types: ['read', 'write'],
  }],
  flows: [
    {
      id: 'demo-v1', name: 'Demo (v1)', description: 'Link the sample CRM; jobs export JSON Lines files', version: 1,
      taps: ['tap-sample'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: {} },
    },
    {
      id: 'demo-v2', name: 'Demo (v2)', description: 'Link the sample connector; read jobs export JSON Lines files, write jobs feed sample data',
      version: 2, connectors: ['sample'],
      widgetOptions: { allowRunWriteJobs: true },
      export: { read: { connector: 'sample', config: {} }, write: { connector: 'sample', config: {} } },
    },
  ],
};

demoSeeders.push(async (ctx, envId) => {
  await applyCatalogDocument(ctx, systemEnvScope(envId), DEMO_CATALOG);
});
