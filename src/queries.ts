import { writeFileSync } from 'fs';
import { resolve } from 'path';

import { renderQueryFiles } from './queries.catalog';

/** `npm run queries`: writes src/<domain>/<domain>.queries.sql, every repository write statement in each shape (queries.catalog.ts). */
function main(): void {
  for (const [path, text] of renderQueryFiles()) {
    writeFileSync(resolve(__dirname, path), text);
    process.stderr.write(`written src/${path}\n`);
  }
}

main();
