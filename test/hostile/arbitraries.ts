import fc from 'fast-check';

/**
 * Generators of hostile request pieces: random text of every kind, and the classics of attacks
 * on web APIs. None may contain what the leak check looks for (leakMarkers), so that a marker in
 * an answer can only have come from the server.
 */
const ADVERSARIAL = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE%C0%AE%2F',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  "' OR '1'='1",
  "'; DROP TABLE campaigns; --",
  '1 UNION SELECT password FROM users',
  '1; SELECT pg_sleep(10)',
  "$$; COPY campaigns TO '/tmp/x'; $$",
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}',
  '${jndi:ldap://x/a}',
  '__proto__',
  'constructor',
  'toString',
  '[object Object]',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '0x10',
  '1.0',
  ' 10',
  '+1',
  '-1',
  '9'.repeat(400),
  '18446744073709551616',
  '0x' + 'f'.repeat(40),
  '0x' + 'F'.repeat(41),
  '0X' + '0'.repeat(40),
  'true',
  'TRUE',
  '\u202e\u0041\u0042',
  '\ud83d\ude00',
  '\ud800',
  'ｔｒｕｅ',
  '١٢٣',
  'a'.repeat(3000),
  ',,,,',
  ' , ,',
  '8453:0x0000000000000000000000000000000000000001:1',
  '8453:0x0000000000000000000000000000000000000001:' + '9'.repeat(79),
];

export const leakMarkers =
  /node_modules|\n\s+at |\bat [^\s]+ \(|stack|syntax error|relation "|column "|violates|invalid input syntax|operator does not exist|SQLSTATE|drizzle|select "|from "|\$[0-9]+\b|must match pattern|\[a-fA-F0-9\]|\{40\}|\^0x/i;

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', minLength: 500, maxLength: 2500 }),
);

const number = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 100n), max: 10n ** 100n }).map(String),
  fc.double().map(String),
  fc.nat(200).map(String),
);

export const hostileValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ADVERSARIAL) }, { weight: 3, arbitrary: text }, { weight: 2, arbitrary: number }).filter(
  (value) => !leakMarkers.test(value),
);

/** How a piece is written into the URL: properly encoded, or with raw and broken percent-encodings. */
export const encoding = fc.constantFrom<(piece: string) => string>(
  (piece) => encodeURIComponent(piece.replace(/[\ud800-\udfff]/g, '\ufffd')),
  (piece) => encodeURI(piece.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/[#&?]/g, encodeURIComponent),
  (piece) => `${encodeURIComponent(piece.replace(/[\ud800-\udfff]/g, '\ufffd'))}%`,
  (piece) => Buffer.from(piece, 'latin1').toString('hex').replace(/(..)/g, '%$1'),
);

/** A query string over `names` (the route's own parameters, so that values reach validation) and stray names. */
export function hostileQuery(names: readonly string[]) {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileValue });
  return fc
    .array(fc.tuple(name, hostileValue, encoding, encoding), { maxLength: 6 })
    .map((pairs) => pairs.map(([key, value, encodeKey, encodeValue]) => `${encodeKey(key)}=${encodeValue(value)}`).join('&'))
    // As sent, not as generated: the latin1 encoding keeps only a character's low byte (U+0124
    // arrives as '$'), so a piece free of markers can arrive as one, which the server then quotes
    // back ("unknown query parameter '$4('"). Every marker is ASCII, so the bytes decide.
    .filter((query) => !leakMarkers.test(sentBytes(query)));
}

/** The query's bytes as the server decodes them, one character per byte (percent-escapes undone). */
function sentBytes(query: string): string {
  return query.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
