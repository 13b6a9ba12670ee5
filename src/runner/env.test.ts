import { describe, expect, it } from 'vitest';
import { connectorEnv } from './env.ts';

describe('connectorEnv', () => {
  it('copies allowlisted basics only, then job variables', () => {
    const env = connectorEnv(
      { PATH: '/bin', HOME: '/h', TZ: 'UTC', DATABASE_URL: 'postgres://x', TAPLINE_ADMIN_KEY: 'k', AWS_SECRET_ACCESS_KEY: 's' },
      { API_KEY: 'v', N: 3, FLAG: true, OBJ: { a: 1 }, SKIP: null },
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', TZ: 'UTC', API_KEY: 'v', N: '3', FLAG: 'true', OBJ: '{"a":1}' });
  });

  it('rejects reserved or malformed job variable names', () => {
    for (const name of ['PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'bad-name', '1X', 'A=B']) {
      expect(() => connectorEnv({}, { [name]: 'x' }), name).toThrow();
    }
    expect(() => connectorEnv({}, { X: 'a\0b' })).toThrow(/NUL/);
  });
});
