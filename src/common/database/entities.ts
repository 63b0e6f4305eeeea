/** TypeORM entity classes of the data model (schema documentation; the schema itself comes from migrations). */
export const ENTITIES: Function[] = [];
