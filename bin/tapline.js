#!/usr/bin/env node
// The `tapline` command. Tapline's sources are TypeScript run by Node >= 22.12 type
// stripping; on an older Node, re-run with the Node that npm installed beside us.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'src', 'cli.ts');
const [major, minor] = process.versions.node.split('.').map(Number);
if (major > 22 || (major === 22 && minor >= 12)) {
  await import(cli);
} else {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    console.error(`tapline needs Node >= 22.12 (this is ${process.version}); run npm install first`);
    process.exit(1);
  }
  const result = spawnSync(pinned, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
