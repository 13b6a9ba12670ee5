// Field-map projection of one stream's JSON lines: keeps the selected top-level
// fields, in field-map order. Records of one stream almost always share one key
// layout, so after parsing a first flat record the projector compiles a regex
// for exactly that layout and cuts the selected values out of later lines as
// text: about 3x faster than JSON.parse + JSON.stringify, and values keep the
// exact text they had. Lines of any other layout take the JSON.parse path.

const STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`;
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const VALUE = `(${STRING}|${NUMBER}|true|false|null)`;
const MAX_TEMPLATE_KEYS = 200;
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

interface Template {
  pattern: RegExp;
  /** Per selected field present in the layout: its capture group and output head (`{"k":` or `,"k":`). */
  groups: number[];
  heads: string[];
}

export class Projector {
  private readonly selected: readonly string[];
  private template: Template | undefined;
  /** Consecutive lines the template did not match. */
  private misses = 0;
  /** Lines parsed without a template (nested records): learning is retried now and then. */
  private untemplated = 0;

  constructor(selected: readonly string[]) {
    this.selected = selected;
  }

  /** The projected JSON text of one line; throws Error naming `lineNumber` if the line is not JSON. */
  project(line: string, lineNumber: number, stream: string): string {
    const template = this.template;
    if (template !== undefined) {
      const m = template.pattern.exec(line);
      if (m !== null) {
        this.misses = 0;
        let out = template.heads.length === 0 ? '{' : '';
        for (let i = 0; i < template.groups.length; i++) out += template.heads[i] + m[template.groups[i]];
        return `${out}}`;
      }
    }
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`${stream} line ${lineNumber}: not valid JSON`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new Error(`${stream} line ${lineNumber}: not a JSON object`);
    }
    // Learn the layout from the first record, again when it changed (several misses
    // in a row), and every 1024 lines while records are not flat.
    const relearn = template === undefined ? this.untemplated++ % 1024 === 0 : ++this.misses > 3;
    if (relearn) {
      this.template = compileTemplate(record as Record<string, unknown>, this.selected);
      this.misses = 0;
    }
    return JSON.stringify(pick(record as Record<string, unknown>, this.selected));
  }
}

function compileTemplate(record: Record<string, unknown>, selected: readonly string[]): Template | undefined {
  const keys = Object.keys(record);
  // Nested values, or integer-like keys (Object.keys lists those first, not in text order): no template.
  if (keys.length > MAX_TEMPLATE_KEYS || keys.some((k) => (record[k] !== null && typeof record[k] === 'object') || INDEX_KEY.test(k))) return undefined;
  const body = keys.map((k) => `${escapeRegExp(JSON.stringify(k))}:${VALUE}`).join(',');
  const groups: number[] = [];
  const heads: string[] = [];
  for (const field of selected) {
    const index = keys.indexOf(field);
    if (index === -1 || groups.includes(index + 1)) continue;
    heads.push(`${heads.length === 0 ? '{' : ','}${JSON.stringify(field)}:`);
    groups.push(index + 1);
  }
  return { pattern: new RegExp(`^\\{${body}\\}$`), groups, heads };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A fresh object with keys in field-map order: every record gets the same hidden
// class, which keeps JSON.stringify on its fast path.
export function pick(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!Object.hasOwn(record, field) || Object.hasOwn(out, field)) continue;
    const value = record[field];
    if (value === undefined) continue;
    if (field === '__proto__') Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
    else out[field] = value;
  }
  return out;
}
