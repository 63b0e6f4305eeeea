import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A list granted to an access-restricted member (D29). Table `member_list_grants`; the schema comes from migrations. */
@Entity({ name: 'member_list_grants' })
export class MemberListGrant {
  @PrimaryColumn({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @PrimaryColumn({ name: 'list_id', type: 'integer' })
  listId: number;
}
