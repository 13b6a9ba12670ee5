/**
 * Key rules shared by every storage backend. Keys come partly from tenant
 * input, so anything that could escape the storage root is rejected.
 */

function assertValidSegments(value: string, what: string): void {
  if (value.includes('\\') || value.includes('\0')) {
    throw new Error(`invalid storage ${what} ${JSON.stringify(value)}: backslash or NUL`);
  }
  if (value.startsWith('/')) {
    throw new Error(`invalid storage ${what} ${JSON.stringify(value)}: absolute path`);
  }
  for (const segment of value.split('/')) {
    if (segment === '') throw new Error(`invalid storage ${what} ${JSON.stringify(value)}: empty segment`);
    if (segment === '.' || segment === '..') {
      throw new Error(`invalid storage ${what} ${JSON.stringify(value)}: '${segment}' segment`);
    }
  }
}

/** Throws unless `key` is a non-empty relative '/'-separated path without '.', '..' or empty segments. */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key === '') throw new Error('invalid storage key: empty');
  assertValidSegments(key, 'key');
}

/**
 * Normalises a folder prefix: one trailing '/' is allowed and dropped.
 * The empty prefix (the whole store) is allowed only when `allowRoot` is set.
 */
export function normalizePrefix(prefix: string, allowRoot = false): string {
  if (typeof prefix !== 'string') throw new Error('invalid storage prefix: not a string');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (trimmed === '') {
    if (allowRoot) return '';
    throw new Error('invalid storage prefix: empty');
  }
  assertValidSegments(trimmed, 'prefix');
  return trimmed;
}

/** Joins validated parts with '/'; each part may itself contain '/'. */
export function joinKey(...parts: string[]): string {
  const key = parts.filter((p) => p !== '').join('/');
  assertValidKey(key);
  return key;
}

/** A single path segment for tenant, flow or job ids: no '/', not '.'/'..', not empty. */
export function assertSafeSegment(value: string, what: string): void {
  if (typeof value !== 'string' || value === '') throw new Error(`${what} must be a non-empty string`);
  if (value.includes('/') || value.includes('\\') || value.includes('\0')) {
    throw new Error(`${what} ${JSON.stringify(value)} must not contain '/', '\\' or NUL`);
  }
  if (value === '.' || value === '..') throw new Error(`${what} must not be '.' or '..'`);
}
