import { describe, expect, it } from 'vitest';
import { keptBytes } from '../../src/json/kept-bytes.js';

describe('keptBytes', () => {
  it('holds the UTF-8 bytes of the text in a buffer of their own, not a slice of the shared pool', () => {
    const text = '{"name":"Événement ✓","id":1}';
    const bytes = keptBytes(text);
    expect(bytes.toString('utf8')).toBe(text);
    expect(bytes.length).toBe(Buffer.byteLength(text));
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(bytes.length);
    // What it replaces: a short text's bytes share an 8 KB slab with others.
    expect(Buffer.from(text).buffer.byteLength).toBeGreaterThan(Buffer.byteLength(text));
  });

  it('copies a buffer that shares its memory (a pooled slice) and keeps one that owns its memory', () => {
    const pooled = Buffer.allocUnsafe(100).fill(7);
    expect(pooled.buffer.byteLength).toBeGreaterThan(100);
    const copied = keptBytes(pooled);
    expect(copied).not.toBe(pooled);
    expect(copied.equals(pooled)).toBe(true);
    expect(copied.buffer.byteLength).toBe(100);
    const own = Buffer.allocUnsafeSlow(100);
    expect(keptBytes(own)).toBe(own);
  });

  it('takes the empty text', () => {
    expect(keptBytes('').length).toBe(0);
  });
});
