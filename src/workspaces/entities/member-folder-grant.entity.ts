import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A folder granted to an access-restricted member (D29). Table `member_folder_grants`; the schema comes from migrations. */
@Entity({ name: 'member_folder_grants' })
export class MemberFolderGrant {
  @PrimaryColumn({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @PrimaryColumn({ name: 'folder_id', type: 'integer' })
  folderId: number;
}
