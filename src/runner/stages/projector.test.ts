import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Projector, pick } from './projector.ts';

// -0 is left out: JSON has no negative zero, so it reads back as 0 and toEqual tells them apart.
const primitive = fc.oneof(fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)), fc.integer(), fc.boolean(), fc.constant(null));
const value = fc.oneof(primitive, fc.array(primitive, { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), primitive, { maxKeys: 2 }));
const key = fc.oneof(fc.constantFrom('id', 'name', 'a.b', '$1', '(x)', '__proto__', '"q"', '\\'), fc.string({ unit: 'binary', maxLength: 4 }));

describe('Projector', () => {
  it('gives the same records as JSON.parse + pick, whatever the layouts and values', () => {
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 1, maxLength: 6 }), fc.array(fc.array(value, { minLength: 6, maxLength: 6 }), { minLength: 1, maxLength: 8 }), fc.array(key, { maxLength: 5 }), fc.boolean(), (keys, rows, selected, shuffle) => {
        const projector = new Projector(selected);
        rows.forEach((row, i) => {
          const ordered = shuffle && i % 3 === 2 ? [...keys].reverse() : keys;
          const record = Object.fromEntries(ordered.map((k, j) => [k, row[j]]));
          const line = JSON.stringify(record);
          const out = projector.project(line, i + 1, 's');
          expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(pick(JSON.parse(line), selected))));
          expect(Object.keys(JSON.parse(out))).toEqual(Object.keys(pick(JSON.parse(line), selected)));
        });
      }),
      { numRuns: 400 },
    );
  });

  it('keeps values as written on the template path and names bad lines', () => {
    const projector = new Projector(['b', 'a']);
    expect(projector.project('{"a":1.50,"b":"x","c":true}', 1, 's')).toBe('{"b":"x","a":1.5}');
    expect(projector.project('{"a":2.50,"b":"\\u00e9","c":false}', 2, 's')).toBe('{"b":"\\u00e9","a":2.50}');
    expect(() => projector.project('{"a":', 3, 'people')).toThrow('people line 3: not valid JSON');
    expect(() => projector.project('[1]', 4, 'people')).toThrow('people line 4: not a JSON object');
  });

  it('pick copies own fields only, __proto__ as data', () => {
    const record = JSON.parse('{"__proto__":{"x":1},"a":1}');
    const out = pick(record, ['__proto__', 'toString', 'a']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"a":1}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
