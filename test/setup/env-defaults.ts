/*
 * Jest setupFiles: defaults for the test processes (issue 12). The suite
 * sends thousands of requests with a handful of keys, so rate limiting is off
 * unless a run sets RATE_LIMIT_PER_MINUTE (its own tests turn it on for their
 * apps); request lines stay quiet unless LOG_LEVEL asks for them.
 */
process.env.RATE_LIMIT_PER_MINUTE ??= '0';
process.env.LOG_LEVEL ??= 'fatal';
