/** TypeORM entity classes of the whole data model (the schema itself comes from migrations, never `synchronize`). */
import { User } from '../../users/entities/user.entity';
import { ApiKey } from '../../users/entities/api-key.entity';
import { Workspace } from '../../workspaces/entities/workspace.entity';
import { WorkspaceMember } from '../../workspaces/entities/workspace-member.entity';
import { MemberFolderGrant } from '../../workspaces/entities/member-folder-grant.entity';
import { MemberListGrant } from '../../workspaces/entities/member-list-grant.entity';
import { Status } from '../../statuses/entities/status.entity';
import { Label } from '../../labels/entities/label.entity';
import { Folder } from '../../folders/entities/folder.entity';
import { List } from '../../lists/entities/list.entity';
import { Task } from '../../tasks/entities/task.entity';
import { TaskAssignee } from '../../tasks/entities/task-assignee.entity';
import { TaskLabel } from '../../tasks/entities/task-label.entity';
import { Attachment } from '../../tasks/entities/attachment.entity';
import { Comment } from '../../comments/entities/comment.entity';
import { CustomField } from '../../custom-fields/entities/custom-field.entity';
import { CustomFieldFolderGrant } from '../../custom-fields/entities/custom-field-folder-grant.entity';
import { CustomFieldListOverride } from '../../custom-fields/entities/custom-field-list-override.entity';
import { CustomFieldAllowedUser } from '../../custom-fields/entities/custom-field-allowed-user.entity';
import { TaskCustomFieldValue } from '../../tasks/entities/task-custom-field-value.entity';

export const ENTITIES = [
  User,
  ApiKey,
  Workspace,
  WorkspaceMember,
  MemberFolderGrant,
  MemberListGrant,
  Status,
  Label,
  Folder,
  List,
  Task,
  TaskAssignee,
  TaskLabel,
  Attachment,
  Comment,
  CustomField,
  CustomFieldFolderGrant,
  CustomFieldListOverride,
  CustomFieldAllowedUser,
  TaskCustomFieldValue,
];
