/** UTF-8 JSON of a `T`, assembled from pieces encoded once: routes send it as it is. */
export type JsonBuffer<T> = Buffer & { readonly __jsonOf?: T };

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/**
 * Builds a JSON answer from UTF-8 pieces. Kept pieces (a built entry) are encoded once when they
 * are kept; a large answer then costs one copy of its bytes, where JSON text would be encoded again
 * for the ETag's hash and again for the socket. Texts are encoded straight into the answer's
 * buffer, not each into a buffer of its own first (a profile's hundreds of entries each have one).
 */
export class JsonBytes {
  private readonly parts: (Buffer | string)[] = [];
  private length = 0;

  text(text: string): this {
    this.parts.push(text);
    this.length += Buffer.byteLength(text);
    return this;
  }

  bytes(bytes: Buffer): this {
    this.parts.push(bytes);
    this.length += bytes.length;
    return this;
  }

  /** A JSON array whose elements `write` appends, one per item. */
  array<T>(items: readonly T[], write: (item: T, json: this) => void): this {
    this.bytes(OPEN);
    items.forEach((item, index) => {
      if (index > 0) this.bytes(COMMA);
      write(item, this);
    });
    return this.bytes(CLOSE);
  }

  toBuffer<T>(): JsonBuffer<T> {
    const buffer = Buffer.allocUnsafe(this.length);
    let offset = 0;
    for (const part of this.parts) {
      offset += typeof part === 'string' ? buffer.write(part, offset) : part.copy(buffer, offset);
    }
    return buffer;
  }
}
