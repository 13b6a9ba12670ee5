// The `tapline` command really works against a data dir (no server needed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = path.join(import.meta.dirname, 'cli.ts');

function tapline(dataDir: string, ...args: string[]): unknown {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, TAPLINE_DATA_DIR: dataDir };
  return JSON.parse(execFileSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' }));
}

describe('tapline CLI', () => {
  it('migrates, creates environments and keys, and revokes them', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-cli-'));
    try {
      expect(tapline(dataDir, 'migrate')).toEqual({ applied: expect.arrayContaining(['001_initial']) });
      const env = tapline(dataDir, 'env', 'create', 'acme') as { api_keys: { environment: string } };
      expect(env.api_keys.environment).toMatch(/^tl_env_/);
      const key = tapline(dataDir, 'keys', 'create', '--env', 'acme', '--type', 'personal', '--role', 'viewer', '--user', 'ann') as { id: string; key: string; role: string };
      expect(key).toMatchObject({ role: 'viewer', user: 'ann' });
      expect(tapline(dataDir, 'env', 'list')).toEqual(['acme']);
      const revoked = tapline(dataDir, 'keys', 'revoke', key.id, '--env', 'acme') as { revoked_at: string | null };
      expect(revoked.revoked_at).not.toBeNull();
      const settings = tapline(dataDir, 'env', 'set', 'acme', '--require-tenant-jwt', 'true') as { require_tenant_jwt: boolean };
      expect(settings.require_tenant_jwt).toBe(true);
      expect(fs.statSync(path.join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('tapline secrets rotate (embedded)', () => {
  it('re-encrypts stored credentials under a new key; everything stays readable', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-rotate-'));
    try {
      tapline(dataDir, 'env', 'create', 'acme');
      tapline(dataDir, 'env', 'set', 'acme', '--webhook-secret', 'hook-secret-123');
      const before = fs.readFileSync(path.join(dataDir, 'secret-key'), 'utf8');
      const result = tapline(dataDir, 'secrets', 'rotate') as { columns: Record<string, { resealed?: number; unreadable?: number }> };
      expect(result.columns['environments.webhook_secrets_enc']).toMatchObject({ unreadable: 0, resealed: 1 });
      const after = fs.readFileSync(path.join(dataDir, 'secret-key'), 'utf8');
      expect(after).not.toBe(before);
      fs.rmSync(path.join(dataDir, 'secret-key.previous'));
      const shown = tapline(dataDir, 'env', 'show', 'acme') as { webhook_secret_set: boolean };
      expect(shown.webhook_secret_set).toBe(true);
      const again = tapline(dataDir, 'secrets', 'rotate') as { columns: Record<string, { unreadable?: number }> };
      expect(Object.values(again.columns).every((c) => (c.unreadable ?? 0) === 0)).toBe(true);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
