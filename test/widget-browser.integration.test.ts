// The real `@hotglue/widget` 1.4.63, unchanged, rendered by Debian's Chromium against a
// real Tapline listening on 127.0.0.1: it mounts, lists the flows and sources Tapline
// serves, and links a source through its own connect form. The page
// (test/widget-browser/) is bundled with Vite at test time into a temporary folder.
// Skipped when /usr/bin/chromium is absent (.ci/run installs it).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestEnv } from './harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const PAGE_SOURCE = path.join(import.meta.dirname, 'widget-browser');
const SCREENSHOT = path.join(os.tmpdir(), 'widget.png');
const TENANT = 'acme-1';
const WAIT = { timeout: 15_000 };
/** API answers other than 200 that the widget takes in its stride: no job has run yet. */
const EXPECTED_FAILURES = [/^GET \/[^/]+\/crm\/acme-1\/jobs\/latest\?entity_id=tap-sample&entity_type=source → 404$/];

if (!HAS_CHROMIUM) console.log(`widget-browser: skipped, ${CHROMIUM} is absent (apt-get install chromium)`);

function catalogDocument(outDir: string) {
  return {
    availableSources: [{
      tap: 'tap-sample', label: 'Sample CRM', domain: 'example.com', type: 'api',
      connect_ui_params: { api_key: { label: 'API key', description: 'Any text', type: 'password' } },
      run: { builtin: 'tap-sample' },
    }],
    availableTargets: [{ target: 'target-jsonl', label: 'JSON Lines', type: 'api', run: { builtin: 'target-jsonl' } }],
    flows: [{ id: 'crm', name: 'CRM', description: 'Sync your CRM', version: 1, taps: ['tap-sample'], export: { target: 'target-jsonl', config: { destination_path: outDir } } }],
  };
}

/** Bundles the test page (React + the widget) with the Vite that comes with Vitest. */
async function buildPage(outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({
    root: PAGE_SOURCE, configFile: false, logLevel: 'warn',
    // Vitest sets NODE_ENV=test, which would make Vite emit React's development JSX calls.
    oxc: { jsx: { development: false } },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: { outDir, emptyOutDir: true, minify: false, reportCompressedSize: false },
  });
}

/** A static file server for the built page, on its own port (so the page is a cross-origin client). */
async function serveStatic(root: string): Promise<http.Server> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const server = http.createServer((req, res) => {
    const file = path.join(root, path.normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+$/, 'index.html'));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe.skipIf(!HAS_CHROMIUM)('@hotglue/widget 1.4.63 in Chromium against Tapline', () => {
  let h: Harness & { close(): Promise<void> };
  let env: TestEnv;
  let apiUrl: string;
  let pageDir: string;
  let server: http.Server;
  let browser: BrowserContext;
  let page: Page;
  const apiFailures: string[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const blocked = new Set<string>();
  const apiCalls: string[] = [];

  /** Waits for `text` on the page; on a timeout, says what the widget asked and logged. */
  async function see(text: string | RegExp): Promise<void> {
    try {
      await page.getByText(text, { exact: typeof text === 'string' }).first().waitFor(WAIT);
    } catch (err) {
      await page.screenshot({ path: SCREENSHOT }).catch(() => undefined);
      const report = { apiCalls, apiFailures, pageErrors, consoleErrors, blocked: [...blocked], body: (await page.locator('body').innerText().catch(() => '')).slice(0, 2000) };
      throw new Error(`${String(err)}\n${JSON.stringify(report, null, 1)}`);
    }
  }

  beforeAll(async () => {
    pageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-widget-'));
    const built = buildPage(path.join(pageDir, 'dist'));
    h = await startHarness('sqlite', { config: { corsOrigins: ['*'] } });
    env = await h.createEnv('widget');
    const catalog = await h.request({ method: 'PUT', url: `/admin/environments/${env.envId}/catalog`, key: env.envKey, body: catalogDocument(path.join(h.dataDir, 'out')) });
    expect(catalog.statusCode, catalog.body).toBe(200);
    apiUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    await built;
    server = await serveStatic(path.join(pageDir, 'dist'));
    browser = await chromium.launchPersistentContext(path.join(pageDir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1100, height: 800 },
    });
    page = browser.pages()[0] ?? await browser.newPage();
    // Only 127.0.0.1 is reachable: anything else (logos, fonts) is aborted, not fetched.
    await page.route((url) => url.hostname !== '127.0.0.1', (route) => {
      blocked.add(new URL(route.request().url()).origin);
      return route.abort();
    });
    // Console errors are kept for the failure report only: the aborted logos log some.
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const call = (r: { method(): string; url(): string }) => `${r.method()} ${r.url().slice(apiUrl.length)}`;
    page.on('request', (r) => { if (r.url().startsWith(apiUrl)) apiCalls.push(call(r)); });
    page.on('requestfailed', (r) => { if (r.url().startsWith(apiUrl)) apiFailures.push(`${call(r)}: ${r.failure()?.errorText}`); });
    page.on('response', (r) => {
      const failure = `${call(r.request())} → ${r.status()}`;
      if (r.url().startsWith(apiUrl) && r.status() >= 400 && !EXPECTED_FAILURES.some((e) => e.test(failure))) apiFailures.push(failure);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    if (pageDir) fs.rmSync(pageDir, { recursive: true, force: true });
  });

  it('mounts, lists the flow and its source, and links the source through its form', async () => {
    const query = new URLSearchParams({ apiUrl, envId: env.envId, apiKey: env.publicKey, tenant: TENANT });
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/?${query}`);
    await see('CRM');
    await page.getByText('CRM', { exact: true }).first().click();
    await see('Sample CRM');
    await page.getByText('Sample CRM', { exact: true }).first().click();
    await see('API key');
    await page.getByLabel('API key').fill('secret-1');
    const linked = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/linkedSources'), WAIT);
    await page.getByRole('button', { name: 'Connect your data' }).click();
    expect((await linked).status()).toBe(200);
    await see('Successfully linked to Sample CRM');
    await see('LINKED');
    await page.screenshot({ path: SCREENSHOT });

    // Tapline's own API (environment key) holds the link the widget made.
    const stored = await h.request({ method: 'GET', url: `/${env.envId}/crm/${TENANT}/linkedSources?config=true`, key: env.envKey });
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json()).toEqual([expect.objectContaining({ tap: 'tap-sample', tenant_id: TENANT, flow_id: 'crm', config: { api_key: 'secret-1' }, disconnected: false })]);
    expect(apiCalls).toEqual(expect.arrayContaining([
      `GET /${env.envId}/preferences`, `GET /${env.envId}/flows/supported`, `GET /${env.envId}/crm/supportedSources?`,
      `GET /${env.envId}/flows/linked?user_id=${TENANT}`, `GET /entity/${env.envId}/${TENANT}/linked?entity=tap-sample`,
      `POST /${env.envId}/crm/${TENANT}/linkedSources`,
    ]));
    expect(apiFailures).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
