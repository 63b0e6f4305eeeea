import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/common/database/data-source';

/** The DataSource the TypeORM migration CLI uses (`npx typeorm -d dist/ormconfig.js ...`). */
export default new DataSource(dataSourceOptions());
