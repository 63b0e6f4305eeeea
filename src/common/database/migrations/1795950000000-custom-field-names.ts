import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D42: custom-field names are unique in their workspace ignoring case and
 * surrounding spaces, as status names are (D25): the index answers two creates
 * or renames that race as well, and toHttpError maps its violation to the 409.
 */
export class CustomFieldNames1795950000000 implements MigrationInterface {
  name = 'CustomFieldNames1795950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX custom_fields_workspace_name_key ON custom_fields (workspace_id, lower(btrim(name)))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX custom_fields_workspace_name_key`);
  }
}
