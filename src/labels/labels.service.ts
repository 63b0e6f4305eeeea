import { Injectable } from '@nestjs/common';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { asBody, MAX_LENGTH, optionalString, requiredText } from '../common/validation/body';
import { requireId } from '../common/validation/ids';
import type { LabelDto } from './labels.dto';
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
    const body = asBody(rawBody);
    const workspaceId = requireId(body.workspace_id, 'workspace_id is required');
    await this.access.workspace(caller, workspaceId, 'label.create');
    const name = requiredText(body, 'name', MAX_LENGTH.name);
    const color = optionalString(body, 'color') ?? null;
    return this.labels.insert(workspaceId, name, color);
  }

  /** spec: Delete label, managers only. */
  async deleteLabel(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'label', id, 'label.delete');
    await this.labels.delete(id);
  }
}
