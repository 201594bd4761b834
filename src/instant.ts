/**
 * A point in time as a query gives it: a UTC date (`2026-11-01`, its midnight) or an ISO 8601
 * date-time with `Z` or an offset (`2026-11-01T12:00:00Z`, `…+02:00`; a fraction is read to the millisecond). Returns
 * epoch milliseconds, or undefined for text that is not one, including dates that do not exist
 * (`2026-02-30`), which Date.parse would roll over into March.
 */
export const INSTANT_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$';

const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;

export function parseInstant(text: string): number | undefined {
  const parts = PARTS.exec(text);
  if (!parts) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, oh = '0', om = '0'] = parts;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3))) - offsetMinutes * 60_000;
}
