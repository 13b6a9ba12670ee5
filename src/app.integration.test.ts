// Error forms, CORS, OpenAPI and health: the app-wide behaviour every client relies on.
import { expect, it } from 'vitest';
import { describeEachStore } from '../test/harness.ts';

describeEachStore('app', (h) => {
  it('answers malformed JSON, wrong content type, oversized bodies and unknown routes in the error form', async () => {
    const env = await h().createEnv();
    const url = `/admin/environments/${env.envId}/api-keys`;
    const cases = [
      { status: 400, res: await h().request({ method: 'POST', url, key: env.envKey, body: undefined, headers: { 'content-type': 'application/json' } }) }, // schema: body required
      { status: 400, res: await h().app.inject({ method: 'POST', url, payload: '{"type":', headers: { 'x-api-key': env.envKey, 'content-type': 'application/json' } }) },
      { status: 415, res: await h().app.inject({ method: 'POST', url, payload: 'type=public', headers: { 'x-api-key': env.envKey, 'content-type': 'application/x-www-form-urlencoded' } }) },
      { status: 413, res: await h().app.inject({ method: 'POST', url, payload: JSON.stringify({ type: 'public', pad: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'x-api-key': env.envKey, 'content-type': 'application/json' } }) },
      { status: 404, res: await h().request({ method: 'GET', url: '/no/such/route/here/at/all', key: env.envKey }) },
      { status: 400, res: await h().request({ method: 'POST', url, key: env.envKey, body: { type: 'wizard' } }) },
    ];
    for (const { status, res } of cases) {
      expect(res.statusCode).toBe(status);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['Code', 'Message']);
      expect(typeof body.Message).toBe('string');
    }
    const keys = (await h().request({ method: 'GET', url, key: env.envKey })).json().api_keys;
    expect(keys).toHaveLength(2);
  });

  it('answers CORS preflights for allowed origins with x-api-key and content-type', async () => {
    const res = await h().app.inject({
      method: 'OPTIONS', url: '/demo/availableSources',
      headers: { origin: 'https://widget.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key,content-type' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://widget.example.com');
    expect(String(res.headers['access-control-allow-headers'])).toContain('x-api-key');
  });

  it('serves health, readiness and an OpenAPI 3.1 document', async () => {
    expect((await h().request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await h().request({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    const doc = (await h().request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/admin/environments');
    const ui = await h().request({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
  });
});

describeEachStore('app with a restricted CORS list', (h) => {
  it('allows only configured or per-environment origins', async () => {
    const env = await h().createEnv();
    const preflight = (origin: string) => h().app.inject({
      method: 'OPTIONS', url: `/${env.envId}/availableSources`,
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect((await preflight('https://evil.example.com')).headers['access-control-allow-origin']).toBeUndefined();
    await h().request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { cors_origins: ['https://app.example.com'] } });
    expect((await preflight('https://app.example.com')).headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect((await preflight('https://global.example.com')).headers['access-control-allow-origin']).toBe('https://global.example.com');
  });
}, { config: { corsOrigins: ['https://global.example.com'] } });

describeEachStore('app: long path identifiers', (h) => {
  it('routes 128-character tenant ids (Fastify would answer 414 past 100)', async () => {
    const env = await h().createEnv();
    const tenant = 't'.repeat(128);
    const res = await h().request({ method: 'GET', url: `/${env.envId}/flow/${tenant}/linkedSources`, key: env.envKey });
    expect(res.statusCode).not.toBe(414);
    expect(res.json().Code ?? 'ok').not.toBe('InternalError');
  });
});
