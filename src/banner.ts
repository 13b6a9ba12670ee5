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
      'Try it:',
      `  curl -s -H 'x-api-key: ${demo.environmentKey}' ${base}/${demo.envId}/flows/supported`,
    );
  } else if (!config.databaseUrl) {
    lines.push(`Demo keys: ${config.dataDir}/demo-keys.json`);
  }
  console.log(lines.join('\n'));
}
