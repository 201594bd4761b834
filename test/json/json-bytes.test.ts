import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../src/json/json-bytes.js';

describe('JsonBytes', () => {
  it('assembles texts and kept bytes into one buffer, multi-byte characters included', () => {
    // A text built by concatenation (as the list's documents are), non-ASCII names, and a kept head.
    const name = ['Récompense ', '🎁', ' 報酬'].join('');
    const built = new JsonBytes()
      .bytes(Buffer.from('{"head":"é"'))
      .text(`,"name":${JSON.stringify(name)}`)
      .text('}')
      .toBuffer();
    expect(built.toString('utf8')).toBe(`{"head":"é","name":${JSON.stringify(name)}}`);
    expect(built.length).toBe(Buffer.byteLength(built.toString('utf8')));
    expect(JSON.parse(built.toString('utf8'))).toEqual({ head: 'é', name });
  });

  it("writes the database's documents as a compact array", () => {
    const documents = ['{"id":"a","name":"Ünïcode"}', '{"id":"b"}', '{"id":"c"}'];
    const page = new JsonBytes().text('{"campaigns":').elements(documents).text(',"totalCampaigns":3}').toBuffer();
    expect(page.toString('utf8')).toBe(`{"campaigns":[${documents.join(',')}],"totalCampaigns":3}`);
    expect(new JsonBytes().elements([]).toBuffer().toString('utf8')).toBe('[]');
  });

  it('separates array items with a comma', () => {
    const items = [1, 2, 3];
    const json = new JsonBytes().array(items, (item, bytes) => bytes.text(String(item))).toBuffer();
    expect(json.toString('utf8')).toBe('[1,2,3]');
  });
});
