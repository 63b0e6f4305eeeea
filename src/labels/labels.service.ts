import { Injectable } from '@nestjs/common';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { validateCreate } from '../common/validation/validate-body';
import { CreateLabelDto, LabelDto } from './labels.dto';
import { LabelsRepository } from './labels.repository';

/** Rules for labels. */
@Injectable()
export class LabelsService {
  constructor(
    private readonly access: AccessService,
    private readonly labels: LabelsRepository,
  ) {}

  /** spec: List labels. */
  async listLabels(caller: Caller, workspaceId: number): Promise<LabelDto[]> {
    await this.access.workspace(caller, workspaceId);
    return this.labels.listByWorkspace(workspaceId);
  }

  /** D1 (ext): create label, managers only; 409 on a duplicate name (D28). */
  async createLabel(caller: Caller, rawBody: unknown): Promise<LabelDto> {
    const create = await validateCreate(CreateLabelDto, rawBody);
    const workspaceId = create.target.workspace_id;
    await this.access.workspace(caller, workspaceId, 'label.create');
    return this.labels.insert(caller, workspaceId, create.body(), caller.db);
  }

  /** spec: Delete label, managers only. */
  async deleteLabel(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'label.delete', id);
    await this.labels.delete(caller, id, caller.db);
  }
}
