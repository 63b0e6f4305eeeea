import { Body, Controller, Post } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';

import { AppModule } from '../../app.module';
import { TasksController } from '../../tasks/tasks.controller';
import { CurrentCaller } from '../auth/auth-context';
import { Authenticated, SCOPE_KEY } from '../auth/authenticated.decorator';
import { WRITE_ROUTE_KEY, WriteRoute } from './write-request';

/** The controllers of `module` and of the modules it imports. */
function controllersOf(module: object, seen = new Set<object>()): object[] {
  if (seen.has(module)) return [];
  seen.add(module);
  const imports = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as object[];
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as object[];
  return [...own, ...imports.flatMap((imported) => controllersOf(imported, seen))];
}

/** Every route handler of the app's controllers. */
function routeHandlers(): Array<{ name: string; handler: object }> {
  const handlers: Array<{ name: string; handler: object }> = [];
  for (const controller of controllersOf(AppModule) as Array<{ name: string; prototype: Record<string, unknown> }>) {
    for (const property of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = controller.prototype[property];
      if (typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
        handlers.push({ name: `${controller.name}.${property}`, handler });
    }
  }
  return handlers;
}

describe('write routes run as write requests, without interceptors (issue 37)', () => {
  const handlers = routeHandlers();

  it('finds the routes', () => {
    expect(handlers.length).toBeGreaterThan(50);
  });

  it('no route has a Nest interceptor: each one costs an rxjs pipeline per request', () => {
    expect(handlers.filter(({ handler }) => Reflect.getMetadata(INTERCEPTORS_METADATA, handler) !== undefined).map(({ name }) => name)).toEqual([]);
  });

  it('exactly the routes of a write scope run through WriteRequests', () => {
    const wrong = handlers.filter(({ handler }) => {
      const scope = Reflect.getMetadata(SCOPE_KEY, handler) as string | undefined;
      return (scope?.endsWith(':write') ?? false) !== (Reflect.getMetadata(WRITE_ROUTE_KEY, handler) === true);
    });
    expect(wrong.map(({ name }) => name)).toEqual([]);
    expect(Reflect.getMetadata(WRITE_ROUTE_KEY, TasksController.prototype.createTask)).toBe(true);
    expect(Reflect.getMetadata(WRITE_ROUTE_KEY, TasksController.prototype.listTasks)).toBeUndefined();
  });

  it('the wrapped handler keeps the metadata of the decorators on either side of it, and its name', () => {
    const handler = TasksController.prototype.createTask;
    expect(handler.name).toBe('createTask');
    expect(Reflect.getMetadata(PATH_METADATA, handler)).toBe('tasks');
    expect(Reflect.getMetadata(SCOPE_KEY, handler)).toBe('tasks:write');
    expect(Reflect.getMetadata('swagger/apiOperation', handler)).toMatchObject({ summary: 'Create task' });
  });

  it('a write route that does not take the caller is refused when its class is declared', () => {
    expect(() => {
      @Controller()
      class NoCaller {
        @Post('x')
        @Authenticated('tasks:write')
        create(@Body() body: unknown): unknown {
          return body;
        }
      }
      return NoCaller;
    }).toThrow('Write route NoCaller.create must take @CurrentCaller()');
    expect(() => {
      class WithCaller {
        @WriteRoute()
        create(@CurrentCaller() caller: unknown): unknown {
          return caller;
        }
      }
      return WithCaller;
    }).not.toThrow();
  });
});
