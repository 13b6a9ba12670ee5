import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineRing, LineSplitter } from './lines.ts';

function split(chunks: string[], options = {}): string[] {
  const lines: string[] = [];
  const s = new LineSplitter((l) => lines.push(l), options);
  for (const c of chunks) s.push(Buffer.from(c));
  s.end();
  return lines;
}

describe('LineSplitter', () => {
  it('matches String.split for any text and any chunking, multi-byte characters included', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }).filter((s) => !s.includes('\r') && !s.includes('\n')), { minLength: 1, maxLength: 10 }), fc.array(fc.nat(), { maxLength: 6 }), (lines, at) => {
        const bytes = Buffer.from(lines.join('\n') + '\n');
        const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(bytes.subarray(prev, p));
          prev = p;
        }
        chunks.push(bytes.subarray(prev));
        const out: string[] = [];
        const s = new LineSplitter((l) => out.push(l));
        for (const c of chunks) s.push(c);
        s.end();
        expect(out).toEqual(lines);
      }),
    );
  });

  it('numbers lines from 1, strips CR and emits a last line without newline', () => {
    const seen: Array<[string, number]> = [];
    const s = new LineSplitter((l, n) => seen.push([l, n]));
    s.push(Buffer.from('a\r\n\nb'));
    s.push(Buffer.from('c'));
    s.end();
    expect(seen).toEqual([['a', 1], ['', 2], ['bc', 3]]);
  });

  it('truncates long lines when asked', () => {
    expect(split(['abcdef', 'ghij\nok\n'], { maxLineBytes: 4, onLongLine: 'truncate' })).toEqual(['abcd [truncated]', 'ok']);
    expect(() => split(['abcdef\n'.slice(0, 6), 'x'], { maxLineBytes: 4 })).toThrow(/line 1: longer than 4 bytes/);
  });
});

describe('LineRing', () => {
  it('keeps the last lines', () => {
    const ring = new LineRing(2);
    for (const l of ['a', 'b', 'c']) ring.add(l);
    expect(ring.toArray()).toEqual(['b', 'c']);
  });
});
