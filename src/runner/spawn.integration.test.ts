import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnConnector, type ConnectorProcess } from './spawn.ts';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const node = process.execPath;
const baseEnv = { PATH: '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', DATABASE_URL: 'postgres://secret', TAPLINE_SECRET_KEY: 'k' };

async function readAll(proc: ConnectorProcess): Promise<string> {
  let text = '';
  for await (const chunk of proc.stdout) text += String(chunk);
  return text;
}

// A zombie (exited, not yet reaped by init) counts as gone.
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function firstLine(proc: ConnectorProcess): Promise<string> {
  for await (const chunk of proc.stdout) return String(chunk).split('\n')[0];
  throw new Error('no output');
}

async function waitGone(pids: number[], ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('spawnConnector', () => {
  it('gives the child only allowlisted variables plus the job variables', async () => {
    const proc = spawnConnector({ command: node, args: [fixture('print-env.mjs')], baseEnv, envVars: { API_TOKEN: 'abc', RETRIES: 3 } });
    const env = JSON.parse(await readAll(proc));
    expect((await proc.done).code).toBe(0);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.TAPLINE_SECRET_KEY).toBeUndefined();
    expect(env).toMatchObject({ PATH: '/usr/bin:/bin', HOME: '/tmp', API_TOKEN: 'abc', RETRIES: '3' });
    const ours = Object.keys(env).filter((k) => !['PATH', 'HOME', 'LANG', 'API_TOKEN', 'RETRIES'].includes(k));
    // Only what the runtime itself may add (e.g. nothing, or LC_CTYPE on some systems).
    expect(ours.filter((k) => !k.startsWith('LC_'))).toEqual([]);
  });

  it('refuses job variables that could inject code', () => {
    expect(() => spawnConnector({ command: node, baseEnv, envVars: { NODE_OPTIONS: '--require x' } })).toThrow(/NODE_OPTIONS/);
    expect(() => spawnConnector({ command: node, baseEnv, envVars: { LD_PRELOAD: 'x.so' } })).toThrow(/LD_PRELOAD/);
  });

  it('never uses a shell', async () => {
    const proc = spawnConnector({ command: node, args: ['-e', 'process.stdout.write(process.argv[1])', '$(echo hi); rm -rf /tmp/x'], baseEnv });
    expect(await readAll(proc)).toBe('$(echo hi); rm -rf /tmp/x');
    expect((await proc.done).code).toBe(0);
  });

  it('splits stderr into lines and keeps a tail', async () => {
    const lines: string[] = [];
    const proc = spawnConnector({ command: node, args: ['-e', 'process.stderr.write("a\\nb\\r\\nc"); process.exit(2)'], baseEnv, onStderrLine: (l) => lines.push(l) });
    const exit = await proc.done;
    expect(exit.code).toBe(2);
    expect(lines).toEqual(['a', 'b', 'c']);
    expect(proc.stderrTail()).toEqual(['a', 'b', 'c']);
  });

  it('on timeout kills the whole process group, grandchild included', async () => {
    const proc = spawnConnector({ command: node, args: [fixture('process-tree.mjs')], baseEnv, timeoutMs: 700 });
    const pids = (await firstLine(proc)).split(' ').map(Number);
    expect(pids.every(alive)).toBe(true);
    const exit = await proc.done;
    expect(exit).toMatchObject({ timedOut: true, aborted: false, killReason: 'timeout', signal: 'SIGTERM' });
    expect(await waitGone(pids)).toBe(true);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const proc = spawnConnector({ command: node, args: [fixture('process-tree.mjs'), 'ignore-term'], baseEnv, killGraceMs: 300 });
    const pids = (await firstLine(proc)).split(' ').map(Number);
    const started = Date.now();
    proc.kill('test');
    const exit = await proc.done;
    expect(exit).toMatchObject({ signal: 'SIGKILL', killReason: 'test' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await waitGone(pids)).toBe(true);
  });

  it('aborts through an AbortSignal, also when already aborted', async () => {
    const controller = new AbortController();
    const proc = spawnConnector({ command: node, args: [fixture('process-tree.mjs')], baseEnv, signal: controller.signal });
    const pids = (await firstLine(proc)).split(' ').map(Number);
    controller.abort();
    expect(await proc.done).toMatchObject({ aborted: true, timedOut: false, killReason: 'aborted' });
    expect(await waitGone(pids)).toBe(true);

    const late = spawnConnector({ command: node, args: ['-e', 'setInterval(() => {}, 1000)'], baseEnv, signal: AbortSignal.abort() });
    expect(await late.done).toMatchObject({ aborted: true });
  });

  it('kills grandchildren left behind when the leader exits', async () => {
    const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref(); console.log(c.pid);`;
    const proc = spawnConnector({ command: node, args: ['-e', script], baseEnv });
    const grandchild = Number((await readAll(proc)).trim());
    expect((await proc.done).code).toBe(0);
    expect(await waitGone([grandchild])).toBe(true);
  });

  it('reports a command that cannot start without rejecting', async () => {
    const proc = spawnConnector({ command: '/nonexistent/tap', baseEnv });
    const exit = await proc.done;
    expect(exit.error?.message).toMatch(/ENOENT/);
    expect(exit.code).toBeNull();
  });

  it('feeds stdin when asked', async () => {
    const proc = spawnConnector({ command: node, args: ['-e', 'process.stdin.pipe(process.stdout)'], baseEnv, stdin: 'pipe' });
    proc.stdin!.end('hello');
    expect(await readAll(proc)).toBe('hello');
    expect((await proc.done).code).toBe(0);
  });
});
