import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { dataSourceOptions } from './src/common/database/data-source';
import { processSettings } from './src/config/settings';

/**
 * The DataSource of the TypeORM CLI, on DATABASE_URL, with the entities and
 * migrations the app uses: `npm run typeorm -- migration:show` (the script runs
 * `typeorm-ts-node-commonjs -d ormconfig.ts`, which loads this file through
 * ts-node). Migrations are written by hand and registered in data-source.ts.
 */
export default new DataSource(dataSourceOptions(processSettings().databaseUrl));
