/**
 * Deterministic value generators for tap-sample. Every value is a pure
 * function of (seed, stream, record index), and each returns the value's JSON
 * text directly: the word lists hold no characters needing escapes, which
 * lets the tap skip JSON.stringify on the hot path.
 */

/** 2024-01-01T00:00:00Z; record i of every stream is updated at BASE + i seconds. */
export const BASE_MS = Date.UTC(2024, 0, 1);

/** A well-mixed 32-bit hash (murmur3 finaliser) of seed, stream salt, index and field. */
export function hash(seed: number, salt: number, index: number, field: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  h ^= Math.imul(index + 0x27d4eb2f, 0x165667b1) ^ Math.imul(field + 1, 0x27d4eb2d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function pick<T>(list: readonly T[], h: number): T {
  return list[h % list.length];
}

const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
const dayPrefixes: string[] = [];

/** `YYYY-MM-DDTHH:MM:SSZ` for a whole-second epoch time, without a Date per call. */
export function isoSeconds(epochSeconds: number): string {
  const day = Math.floor(epochSeconds / 86400);
  let prefix = dayPrefixes[day];
  if (prefix === undefined) {
    prefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
    dayPrefixes[day] = prefix;
  }
  const sod = epochSeconds - day * 86400;
  const hh = Math.floor(sod / 3600);
  const mm = Math.floor((sod % 3600) / 60);
  return `${prefix}${TWO[hh]}:${TWO[mm]}:${TWO[sod % 60]}Z`;
}

/** updated_at of record `index` (0-based) in every stream. */
export function updatedAtSeconds(index: number): number {
  return BASE_MS / 1000 + index;
}

export const FIRST_NAMES = [
  'Ada', 'Alan', 'Grace', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Frances', 'Edsger',
  'Radia', 'Tim', 'Hedy', 'Donald', 'Katherine', 'John', 'Shafi', 'Leslie', 'Sophie', 'Guido',
] as const;
export const LAST_NAMES = [
  'Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Hamilton', 'Ritchie', 'Liskov', 'Thompson', 'Allen',
  'Dijkstra', 'Perlman', 'Lee', 'Lamarr', 'Knuth', 'Johnson', 'McCarthy', 'Goldwasser', 'Lamport',
  'Wilson', 'Rossum',
] as const;
export const COMPANY_WORDS = [
  'Blue', 'River', 'Summit', 'Pine', 'Harbor', 'Quantum', 'Granite', 'Cedar', 'Nova', 'Atlas',
  'Orbit', 'Maple', 'Vertex', 'Falcon', 'Lumen', 'Aurora',
] as const;
export const COMPANY_SUFFIXES = ['Labs', 'Systems', 'Works', 'Partners', 'Group', 'Analytics', 'Foods', 'Logistics'] as const;
export const INDUSTRIES = [
  'Software', 'Manufacturing', 'Retail', 'Healthcare', 'Finance', 'Education', 'Logistics', 'Energy', 'Media',
] as const;
export const DEAL_STAGES = [
  'prospecting', 'qualification', 'proposal', 'negotiation', 'closed_won', 'closed_lost',
] as const;
export const DEAL_PRODUCTS = ['Platform', 'Support Plan', 'Onboarding', 'Analytics Add-on', 'Enterprise Seats'] as const;

const LOWER_FIRST = FIRST_NAMES.map((n) => n.toLowerCase());
const LOWER_LAST = LAST_NAMES.map((n) => n.toLowerCase());

export function lowerFirstName(h: number): string {
  return LOWER_FIRST[h % LOWER_FIRST.length];
}
export function lowerLastName(h: number): string {
  return LOWER_LAST[h % LOWER_LAST.length];
}

/** A 0-based index in [0, upToInclusive] so references point at records that exist. */
export function referenceIndex(h: number, upToInclusive: number): number {
  return h % (upToInclusive + 1);
}
