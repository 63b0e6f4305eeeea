/**
 * The challenge of every 401 answer, in its `WWW-Authenticate` header (RFC 9110
 * requires one on a 401): the API key is a bearer token (spec: Authentication 1).
 */
export const WWW_AUTHENTICATE = 'Bearer';
