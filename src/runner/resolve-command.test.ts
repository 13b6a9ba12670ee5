import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { resolveCommand } from './resolve-command.ts';

describe('resolveCommand', () => {
  it('runs built-ins with the Node binary that runs Tapline', () => {
    const { command, args } = resolveCommand({ builtin: 'tap-sample' });
    expect(command).toBe(process.execPath);
    expect(args).toHaveLength(1);
    expect(isAbsolute(args[0])).toBe(true);
    expect(args[0].endsWith('/connectors/tap-sample.ts')).toBe(true);
    expect(existsSync(args[0])).toBe(true);
  });

  it('gives built-ins (only) a compile cache beside our modules', () => {
    const { env } = resolveCommand({ builtin: 'tap-sample' });
    expect(env?.NODE_COMPILE_CACHE).toMatch(/\/node_modules\/\.cache\/tapline-connectors\/$/);
    expect(resolveCommand({ command: 'tap-x' }).env).toBeUndefined();
  });

  it('rejects unknown or path-like built-in names', () => {
    expect(() => resolveCommand({ builtin: 'nope' })).toThrow('unknown built-in connector: nope');
    expect(() => resolveCommand({ builtin: '../src/server' })).toThrow(/invalid built-in connector name/);
  });

  it('passes command specs through as argv', () => {
    expect(resolveCommand({ command: 'tap-x', args: ['--flag', 'a b'] })).toEqual({ command: 'tap-x', args: ['--flag', 'a b'] });
    expect(resolveCommand({ command: '/usr/bin/tap' })).toEqual({ command: '/usr/bin/tap', args: [] });
    expect(() => resolveCommand({ command: '' })).toThrow();
  });
});
