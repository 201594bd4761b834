import { expect } from 'vitest';
import type { App } from '../../src/app.js';

/** Asks `url` and expects the refusal: `status`, a body of exactly `{ error }`, and a message matching `message`. */
export async function expectRefusal(app: App, url: string, status: number, message: RegExp): Promise<void> {
  const response = await app.inject(url);
  expect(response.statusCode, response.body).toBe(status);
  expect(Object.keys(response.json())).toEqual(['error']);
  expect(response.json<{ error: string }>().error).toMatch(message);
}
