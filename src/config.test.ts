import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('config', () => {
  it('has working defaults for embedded mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, databaseUrl: undefined, logLevel: 'info', bodyLimitBytes: 1024 * 1024 });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', TAPLINE_SECRET_KEY: 'short', TAPLINE_WEBHOOK_ALLOW_PRIVATE: 'maybe' });
      expect.unreachable();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'TAPLINE_SECRET_KEY', 'TAPLINE_WEBHOOK_ALLOW_PRIVATE']) {
        expect(problems).toContain(name);
      }
    }
  });

  it('requires a master key in PostgreSQL mode', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x' })).toThrow(/TAPLINE_SECRET_KEY: required/);
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x', TAPLINE_SECRET_KEY: 'a'.repeat(64) }).databaseUrl).toBe('postgres://localhost/x');
  });

  it('passes connectors only allow-listed variables', () => {
    const config = loadConfig({ PATH: '/bin', DATABASE_URL: 'postgres://h/db', TAPLINE_SECRET_KEY: 'b'.repeat(64), HOME: '/root' });
    expect(config.connectorBaseEnv).toEqual({ PATH: '/bin', HOME: '/root' });
  });
});
