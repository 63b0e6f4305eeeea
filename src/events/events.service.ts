import { Injectable } from '@nestjs/common';

import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import type { QueryPairs } from '../common/validation/query-reader';
import { EventQuery, parseEventQuery } from './event-query';
import type { EventPageDto } from './events.dto';
import { EventsRepository } from './events.repository';

/** The events feed (D37). */
@Injectable()
export class EventsService {
  constructor(
    private readonly access: AccessService,
    private readonly events: EventsRepository,
  ) {}

  /**
   * D37: List events. Membership (404 `Workspace not found`) → the query's 400s
   * in D37's order → one statement for the page (visibility of restricted members
   * judged against their grants now). Two round trips, authentication included.
   */
  async listEvents(caller: Caller, workspaceId: number, pairs: QueryPairs): Promise<RawJson<EventPageDto>> {
    // Parsed first, answered after the membership's 404 (as List tasks).
    let query: EventQuery | undefined;
    let invalid: unknown;
    try {
      query = parseEventQuery(pairs);
    } catch (error) {
      invalid = error;
    }
    const { membership } = await this.access.workspace(caller, workspaceId);
    if (!query) throw invalid;
    const { data, last } = await this.events.page(workspaceId, caller.userId, membership, query);
    return RawJson.page(data, `,"next_after":${last ?? query.after}}`);
  }
}
