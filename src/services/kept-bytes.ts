/**
 * The UTF-8 bytes of `text` in a buffer of their own, for bytes kept longer than a request (the
 * response cache's answers, the entry cache's heads).
 *
 * `Buffer.from` puts a short text (under 4 KB) in a slice of a shared 8 KB slab, and a kept slice
 * keeps its whole slab: the slabs of requests long gone stay allocated, scattered through malloc's
 * heap among the ones in use, and the process's RSS grows with them. Measured on 2026-11-26, a
 * server with the response cache on driven over 2,000 campaign ids (detail, then activity, 10 s
 * each, about 3.7 KB an answer, 5 MB of answers kept): peak RSS 181-219 MB with slices, 181-193 MB
 * with buffers of their own. Node's documentation recommends the same for retained small chunks
 * (`Buffer.allocUnsafeSlow`).
 */
export function keptBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}
