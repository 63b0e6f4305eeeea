import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';

import { CommentsController } from '../../comments/comments.controller';
import { TasksController } from '../../tasks/tasks.controller';
import { WriteRequestInterceptor } from './write-request.interceptor';

const interceptorsOf = (handler: object) => Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined;

describe('the interceptors of the routes (issue 37)', () => {
  it('a write route has one, WriteRequestInterceptor (its connection, D35 and the lost-race retry): each layer costs a Nest and rxjs pipeline per request', () => {
    expect(interceptorsOf(TasksController.prototype.createTask)).toEqual([WriteRequestInterceptor]);
    expect(interceptorsOf(CommentsController.prototype.createComment)).toEqual([WriteRequestInterceptor]);
  });

  it('a read route has none', () => {
    expect(interceptorsOf(TasksController.prototype.listTasks)).toBeUndefined();
    expect(interceptorsOf(CommentsController.prototype.listComments)).toBeUndefined();
  });
});
