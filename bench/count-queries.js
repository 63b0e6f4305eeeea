/*
 * Preloaded into the benchmarked server (`node --require bench/count-queries.js dist/main.js`) by
 * `npm run bench -- --deliveries`: counts SQL round trips, every `query` call on a `pg` Client of
 * the process (TypeORM's pool, the job queue's, graphile-worker's), and writes the count to
 * BENCH_QUERY_COUNT_FILE.<pid> when the process exits.
 */
const { writeFileSync } = require('fs');
const { Client } = require('pg');

let count = 0;
const query = Client.prototype.query;
Client.prototype.query = function (...args) {
  count += 1;
  return query.apply(this, args);
};
process.on('exit', () => writeFileSync(`${process.env.BENCH_QUERY_COUNT_FILE}.${process.pid}`, String(count)));
