import { Module } from '@nestjs/common';

import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/** Workspaces: get, mine, members. */
@Module({ controllers: [WorkspacesController], providers: [WorkspacesService, WorkspacesRepository] })
export class WorkspacesModule {}
