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

  text(text: string): this {
    this.parts.push(text);
    return this;
  }

  bytes(bytes: Buffer): this {
    this.parts.push(bytes);
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

  /**
   * A JSON array of elements already serialized as text (the database's documents). Assembled as
   * bytes, never as one string: a page of 100 campaigns is past V8's large-object size, and a
   * string that large is born in V8's large-object space, which only a full collection empties.
   */
  elements(texts: readonly string[]): this {
    return this.array(texts, (text, json) => json.text(text));
  }

  toBuffer<T>(): JsonBuffer<T> {
    // Measured here, not as texts arrive: measuring flattens a text built by concatenation, and a
    // flat copy made early lives as long as the answer is being assembled (past a scavenge or two).
    let length = 0;
    for (const part of this.parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    const buffer = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const part of this.parts) {
      offset += typeof part === 'string' ? buffer.write(part, offset) : part.copy(buffer, offset);
    }
    return buffer;
  }
}
