// Redaction of a job's secrets from its log. Which config values are credentials
// is not knowable in general, so every string value of the job's configs and
// variables of 4 characters or more is treated as one — except dates, numbers and
// booleans, which carry no secret and which a reader of the log needs.

export const REDACTED = '[REDACTED]';
const MIN_SECRET_CHARS = 4;
const NOT_SECRET = /^(?:\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?|-?\d+(?:\.\d+)?|true|false|null)$/i;

function collect(value: unknown, out: Set<string>, depth: number): void {
  if (depth > 20 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (value.length >= MIN_SECRET_CHARS && !NOT_SECRET.test(value)) out.add(value);
    return;
  }
  if (typeof value !== 'object') return;
  for (const item of Array.isArray(value) ? value : Object.values(value)) collect(item, out, depth + 1);
}

/** The secret strings of some configs/variables (as they may appear in text, JSON-escaped too). */
export function secretStrings(...values: unknown[]): string[] {
  const found = new Set<string>();
  for (const value of values) collect(value, found, 0);
  const forms = new Set<string>();
  for (const secret of found) {
    forms.add(secret);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) forms.add(escaped);
  }
  // Longest first, so a secret containing another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

export type Redactor = (text: string) => string;

export function makeRedactor(secrets: readonly string[]): Redactor {
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}
