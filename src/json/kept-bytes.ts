/**
 * `answer`'s bytes in a buffer of their own, for bytes kept longer than a request (the response
 * cache's answers, the entry cache's heads): a text is encoded into one, a buffer that shares its
 * memory is copied into one, and a buffer that already owns its memory is kept as it is.
 *
 * `Buffer.from` and `Buffer.allocUnsafe` (JsonBytes) put short contents (under half of
 * `Buffer.poolSize`) in a slice of a shared slab of `Buffer.poolSize` bytes, and a kept slice keeps
 * its whole slab: the slabs of requests long gone stay allocated, scattered through malloc's heap
 * among the ones in use, and the process's RSS grows with them; buffers of their own keep only what
 * they hold. Node's documentation recommends the same for retained small chunks (`Buffer.allocUnsafeSlow`).
 */
export function keptBytes(answer: string | Buffer): Buffer {
  if (typeof answer !== 'string') {
    if (answer.byteOffset === 0 && answer.buffer.byteLength === answer.length) return answer;
    const own = Buffer.allocUnsafeSlow(answer.length);
    answer.copy(own);
    return own;
  }
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(answer));
  bytes.write(answer);
  return bytes;
}
