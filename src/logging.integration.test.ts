// No log line may carry an API key, tenant token or secret, whatever the request.
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { describeEachStore } from '../test/harness.ts';
import { createLogger, redactUrl } from './logging.ts';

const lines: string[] = [];
const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });

describeEachStore('logging', (h) => {
  it('never writes keys, tokens or secrets', async () => {
    const env = await h().createEnv();
    const secret = 'very-secret-webhook-value';
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_secret: secret } });
    const key = (await h().request({ method: 'POST', url: `/admin/environments/${env.envId}/api-keys`, key: env.envKey, body: { type: 'public' } })).json().key;
    await h().request({ method: 'GET', url: `/${env.envId}/f/t/linkedSources?config=true&token=eyJhbGciOi.secret-token.sig`, key });
    await h().request({ method: 'GET', url: '/admin/environments', key: 'tl_op_wrong-operator-key' });
    const text = lines.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const forbidden of [env.envKey, env.publicKey, key, secret, 'secret-token', 'tl_op_wrong-operator-key', h().operatorKey]) {
      expect(text).not.toContain(forbidden);
    }
  });
}, { logger: createLogger('info', sink) });

it('redacts tokens in URLs', () => {
  expect(redactUrl('/a/b?config=true&token=abc.def&x=1')).toBe('/a/b?config=true&token=[Redacted]&x=1');
});
