/** The three tap-sample streams: their schemas and per-field JSON generators. */
import {
  COMPANY_SUFFIXES, COMPANY_WORDS, DEAL_PRODUCTS, DEAL_STAGES, FIRST_NAMES, INDUSTRIES, LAST_NAMES,
  hash, isoSeconds, lowerFirstName, lowerLastName, pick, referenceIndex, updatedAtSeconds,
} from './data.ts';

export interface FieldDef {
  name: string;
  schema: Record<string, unknown>;
  /** id and the replication key are always emitted. */
  automatic: boolean;
  /** JSON text of the field's value for record `index` (0-based). */
  json: (seed: number, index: number) => string;
}

export interface StreamDef {
  name: string;
  fields: FieldDef[];
}

const INTEGER = { type: ['integer'] };
const STRING = { type: ['string'] };
const NUMBER = { type: ['number'] };
const DATE_TIME = { type: ['string'], format: 'date-time' };

const SALT = { contacts: 1, companies: 2, deals: 3 } as const;

function field(name: string, schema: Record<string, unknown>, json: FieldDef['json'], automatic = false): FieldDef {
  return { name, schema, automatic, json };
}

const idField = field('id', INTEGER, (_seed, i) => String(i + 1), true);
const updatedAtField = field('updated_at', DATE_TIME, (_seed, i) => `"${isoSeconds(updatedAtSeconds(i))}"`, true);

function companyWords(seed: number, i: number): [string, string, string] {
  const h = hash(seed, SALT.companies, i, 1);
  const first = h % COMPANY_WORDS.length;
  const second = (first + 1 + ((h >>> 8) % (COMPANY_WORDS.length - 1))) % COMPANY_WORDS.length;
  return [COMPANY_WORDS[first], COMPANY_WORDS[second], pick(COMPANY_SUFFIXES, h >>> 16)];
}

function companyDomain(seed: number, i: number): string {
  const [a, b] = companyWords(seed, i);
  return `${a.toLowerCase()}${b.toLowerCase()}${i + 1}.example.com`;
}

function contactCompanyIndex(seed: number, i: number): number {
  return referenceIndex(hash(seed, SALT.contacts, i, 4), i);
}

const contacts: StreamDef = {
  name: 'contacts',
  fields: [
    idField,
    field('first_name', STRING, (seed, i) => `"${pick(FIRST_NAMES, hash(seed, SALT.contacts, i, 1))}"`),
    field('last_name', STRING, (seed, i) => `"${pick(LAST_NAMES, hash(seed, SALT.contacts, i, 2))}"`),
    field('email', STRING, (seed, i) => {
      const first = lowerFirstName(hash(seed, SALT.contacts, i, 1));
      const last = lowerLastName(hash(seed, SALT.contacts, i, 2));
      return `"${first}.${last}.${i + 1}@${companyDomain(seed, contactCompanyIndex(seed, i))}"`;
    }),
    field('company_id', INTEGER, (seed, i) => String(contactCompanyIndex(seed, i) + 1)),
    field('phone', STRING, (seed, i) => {
      const h = hash(seed, SALT.contacts, i, 5);
      return `"+1-555-${String(h % 1000).padStart(3, '0')}-${String((h >>> 10) % 10000).padStart(4, '0')}"`;
    }),
    field('created_at', DATE_TIME, (seed, i) => {
      const ageSeconds = hash(seed, SALT.contacts, i, 6) % (90 * 86400);
      return `"${isoSeconds(updatedAtSeconds(i) - ageSeconds)}"`;
    }),
    updatedAtField,
  ],
};

const companies: StreamDef = {
  name: 'companies',
  fields: [
    idField,
    field('name', STRING, (seed, i) => `"${companyWords(seed, i).join(' ')}"`),
    field('domain', STRING, (seed, i) => `"${companyDomain(seed, i)}"`),
    field('industry', STRING, (seed, i) => `"${pick(INDUSTRIES, hash(seed, SALT.companies, i, 3))}"`),
    field('employees', INTEGER, (seed, i) => String(1 + (hash(seed, SALT.companies, i, 4) % 5000))),
    updatedAtField,
  ],
};

const deals: StreamDef = {
  name: 'deals',
  fields: [
    idField,
    field('name', STRING, (seed, i) => `"${pick(DEAL_PRODUCTS, hash(seed, SALT.deals, i, 1))} #${i + 1}"`),
    field('amount', NUMBER, (seed, i) => String((hash(seed, SALT.deals, i, 2) % 10_000_000) / 100)),
    field('stage', STRING, (seed, i) => `"${pick(DEAL_STAGES, hash(seed, SALT.deals, i, 3))}"`),
    field('company_id', INTEGER, (seed, i) => String(referenceIndex(hash(seed, SALT.deals, i, 4), i) + 1)),
    field('contact_id', INTEGER, (seed, i) => String(referenceIndex(hash(seed, SALT.deals, i, 5), i) + 1)),
    updatedAtField,
  ],
};

export const STREAMS: readonly StreamDef[] = [contacts, companies, deals];

export function findStream(name: string): StreamDef | undefined {
  return STREAMS.find((s) => s.name === name);
}

/** JSON schema of a stream limited to `fields`. */
export function streamSchema(fields: readonly FieldDef[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of fields) properties[f.name] = f.schema;
  return { type: ['object'], properties, additionalProperties: false };
}
