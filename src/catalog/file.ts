// `--catalog file.json` and `tapline catalog load`: operators keep the catalog in git.
// The file is one catalog document ({"env_id"?, availableSources, availableTargets,
// availableConnectors, flows}) or several: {"environments": {"<env_id>": {...}}}.
import fs from 'node:fs';
import { systemEnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { applyCatalogDocument, type ApplySummary } from './bulk.ts';

export function readCatalogFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read catalog file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`Catalog file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The documents of a catalog file by environment id; `envId` names the environment of a single document without "env_id". */
export function catalogDocumentsOf(content: unknown, envId?: string): Map<string, unknown> {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) throw new Error('A catalog file must hold a JSON object');
  const docs = new Map<string, unknown>();
  const { environments, env_id: fileEnv, ...single } = content as Record<string, unknown>;
  if (environments !== undefined) {
    if (typeof environments !== 'object' || environments === null || Array.isArray(environments)) throw new Error('"environments" must be an object keyed by env_id');
    for (const [id, doc] of Object.entries(environments)) if (envId === undefined || id === envId) docs.set(id, doc);
    if (envId !== undefined && docs.size === 0) throw new Error(`The catalog file has no environment "${envId}"`);
    return docs;
  }
  const target = envId ?? (typeof fileEnv === 'string' ? fileEnv : undefined);
  if (target === undefined) throw new Error('The catalog file names no environment: add "env_id" or pass one');
  if (typeof fileEnv === 'string' && envId !== undefined && fileEnv !== envId) {
    throw new Error(`The catalog file is for environment "${fileEnv}", not "${envId}"`);
  }
  docs.set(target, single);
  return docs;
}

/** Applies a catalog file (replacing each named environment's catalog); returns a summary per environment. */
export async function applyCatalogFile(ctx: AppContext, file: string, envId?: string): Promise<Record<string, ApplySummary>> {
  const docs = catalogDocumentsOf(readCatalogFile(file), envId);
  const results: Record<string, ApplySummary> = {};
  for (const [id, doc] of docs) results[id] = await applyCatalogDocument(ctx, systemEnvScope(id), doc);
  return results;
}
