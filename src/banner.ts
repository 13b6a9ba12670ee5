// What `npm start` prints: where the API is, the keys made on this start (once), and
// a curl line that works as printed.
import type { OperatorKeyResult } from './auth/operator-key.ts';
import type { Config } from './config.ts';
import type { DemoSetup } from './demo.ts';

export function printStartBanner(config: Config, operator: OperatorKeyResult, demo: DemoSetup | null): void {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host}:${config.port}`;
  const lines = [
    '',
    `Tapline is serving on ${base}  (API reference: ${base}/docs)`,
    `Mode: ${config.databaseUrl ? 'PostgreSQL' : `embedded (data in ${config.dataDir})`}`,
  ];
  if (operator.generatedKey) {
    lines.push(`Operator key (shown once, also saved to ${operator.file}):`, `  ${operator.generatedKey}`);
  }
  if (demo) {
    lines.push(
      `Created the "${demo.envId}" environment (keys saved to ${config.dataDir}/demo-keys.json):`,
      `  environment key: ${demo.environmentKey}`,
      `  public key:      ${demo.publicKey}`,
      'Try it: list the flows, link the sample source for tenant "acme", run a job, read its status:',
      ...demoCurlLines(base, demo, config.dataDir),
    );
  } else if (!config.databaseUrl) {
    lines.push(`Demo keys: ${config.dataDir}/demo-keys.json`);
  }
  console.log(lines.join('\n'));
}

export function demoCurlLines(base: string, demo: DemoSetup, dataDir: string): string[] {
  const key = `-H 'x-api-key: ${demo.environmentKey}'`;
  const json = `${key} -H 'content-type: application/json'`;
  const flow = `${base}/${demo.envId}/demo-v1/acme`;
  return [
    `  curl -s ${key} ${base}/${demo.envId}/flows/supported`,
    `  curl -s ${json} -X POST ${flow}/linkedSources -d '{"source":{"tap":"tap-sample","config":{"api_key":"demo"}}}'`,
    `  curl -s ${json} -X POST ${flow}/jobs -d '{"tap":"tap-sample"}'`,
    `  curl -s ${key} ${flow}/jobs/latest`,
    `  ls ${dataDir}/exports/${demo.envId}/demo-v1/acme   # the exported JSON Lines files`,
  ];
}
