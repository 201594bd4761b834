import { ErrorResponse } from '../schemas/common.js';
import { ref } from '../schemas/typebox.js';

/** The error responses every public API operation can return, for its response schema (and the OpenAPI document). */
export const PUBLIC_ERROR_RESPONSES = {
  400: { ...ref(ErrorResponse), description: 'A parameter is invalid; the message names it' },
  503: { ...ref(ErrorResponse), description: 'The database is unavailable; retry after Retry-After seconds' },
  504: { ...ref(ErrorResponse), description: 'The query took longer than its time budget' },
};
