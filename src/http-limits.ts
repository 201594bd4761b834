/**
 * Request size limits shared by the app and its plugins.
 *
 * A real campaign ID is over 100 characters; path parameters may be far longer so that an
 * over-long ID reaches schema validation and gets a 400 that says so, instead of a bare 404.
 */
export const MAX_PARAM_LENGTH = 2048;

/** Longest request target (path + query) accepted; longer is a 414. Fits 50 list entries per filter. */
export const MAX_URL_LENGTH = 8192;
