// Which config values are secrets, and masking them in every answer. Pure.
import type { ConnectUiParam } from '../catalog/types.ts';

/** What a masked secret looks like in answers. Sent back unchanged, it keeps the stored value. */
export const MASK = '********';

const SECRET_ANYWHERE = /(password|passwd|secret|credential)/;
const SECRET_SUFFIX = /(token|api_?key|private_?key)$/;

/** True for config keys that name secrets (password, client_secret, refresh_token, api_key, ...). */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase().replace(/-/g, '_');
  return SECRET_ANYWHERE.test(lower) || SECRET_SUFFIX.test(lower);
}

/** Top-level config keys declared as `type: "password"` by the catalog entry. */
export function passwordParams(params: Record<string, ConnectUiParam> | undefined): Set<string> {
  return new Set(Object.entries(params ?? {}).filter(([, p]) => p.type === 'password').map(([k]) => k));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function maskValue(value: unknown): unknown {
  return value === null || value === undefined || value === '' ? value : MASK;
}

function maskDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskDeep);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? maskValue(v) : maskDeep(v);
  return out;
}

/** A copy of `config` with every secret value replaced by MASK (nested objects too). */
export function maskConfig(config: Record<string, unknown>, declaredSecrets: Set<string> = new Set()): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    out[k] = declaredSecrets.has(k) || isSecretKey(k) ? maskValue(v) : maskDeep(v);
  }
  return out;
}

/**
 * Clients often send back the config they were shown. A top-level secret still equal
 * to MASK means "unchanged": keep the stored value instead of storing the mask.
 */
export function keepMaskedSecrets(incoming: Record<string, unknown>, stored: Record<string, unknown>, declaredSecrets: Set<string> = new Set()): Record<string, unknown> {
  const out = { ...incoming };
  for (const [k, v] of Object.entries(incoming)) {
    if (v === MASK && (declaredSecrets.has(k) || isSecretKey(k))) {
      if (Object.hasOwn(stored, k)) out[k] = stored[k];
      else delete out[k];
    }
  }
  return out;
}
