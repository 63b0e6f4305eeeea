/**
 * D5: an id in a request body, sent as a JSON number or a string of ASCII
 * digits (`12` and `"12"` are the same id). The specification's reference
 * types body ids as strings; clients may send either.
 */
export const BODY_ID = {
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^[0-9]+$' },
  ],
  example: 1,
};
