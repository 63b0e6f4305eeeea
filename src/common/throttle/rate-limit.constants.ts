/** The 429 message of the rate limit (D31: `{"error": "Too many requests"}`); the OpenAPI document publishes it. */
export const RATE_LIMIT_MESSAGE = 'Too many requests';
