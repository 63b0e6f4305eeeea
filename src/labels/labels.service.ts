import { Injectable, NotFoundException } from '@nestjs/common';

import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { validateBody, validateCreate } from '../common/validation/validate-body';
import { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';
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

  /**
   * D43: update label, managers only (403 `Only owners and admins can edit labels`), then the body in the
   * order `name`, `color` (400s), then D28's 409. Two round trips: the access check and the update with its event.
   */
  async updateLabel(caller: Caller, id: number, rawBody: unknown): Promise<LabelDto> {
    await this.access.check(caller, 'label.edit', id);
    const patch = await validateBody(UpdateLabelDto, rawBody);
    // D39: a null name counts as not sent.
    if ((patch as { name?: unknown }).name === null) delete patch.name;
    const label = await this.labels.update(caller, id, patch, caller.db);
    if (!label) throw new NotFoundException(NOT_FOUND.label);
    return label;
  }

  /** spec: Delete label, managers only. */
  async deleteLabel(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'label.delete', id);
    await this.labels.delete(caller, id, caller.db);
  }
}
