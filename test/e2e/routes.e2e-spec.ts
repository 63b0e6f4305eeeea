import { Controller, Get, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { InjectOptions } from 'fastify';

import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { Authenticated, Public, PUBLIC_KEY, SCOPE_KEY } from '../../src/common/auth/authenticated.decorator';
import type { Scope } from '../../src/common/auth/scope';
import { createAdapter } from '../../src/common/http/adapter';
import { createTestApp, TestApp, testSettings } from '../setup/create-app';
import { ROUTES } from '../setup/routes';

/**
 * Every route of the app, found by reflecting over every controller: closed by
 * default (each declares @Authenticated or @Public, STYLE "Access control in one
 * place"), and exactly the routes of D1 with the scope D1 gives each.
 */

/** D1: method, path, scope (the shared table of test/setup/routes.ts). */
const D1: Array<[string, string, Scope]> = ROUTES.map((r) => [r.method, r.path, r.scope]);

/**
 * D1: the controller routes served without a key, and the health probes of
 * issue 12. (The OpenAPI document, /docs and /metrics are plain Fastify routes, not controllers.)
 */
const PUBLIC_ROUTES = ['GET /health', 'GET /health/live', 'GET /health/ready'];

interface Route {
  method: string;
  path: string;
  controller: string;
  handler: string;
  scope: Scope | undefined;
  isPublic: boolean;
}

/** `/a/` + `b/:id` -> `/a/b/:id`. */
function joinPath(...parts: string[]): string {
  const segments = parts.flatMap((p) => p.split('/')).filter((s) => s !== '');
  return '/' + segments.join('/');
}

const asArray = (v: string | string[] | undefined): string[] => (v === undefined ? [''] : Array.isArray(v) ? v : [v]);

/** The routes of one controller class, with their authentication metadata as the guard reads it. */
function routesOf(controller: new (...args: never[]) => unknown): Route[] {
  const reflector = new Reflector();
  const routes: Route[] = [];
  const prefixes = asArray(Reflect.getMetadata(PATH_METADATA, controller));
  const proto = controller.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const handler = proto[name];
    if (name === 'constructor' || typeof handler !== 'function') continue;
    const method: RequestMethod | undefined = Reflect.getMetadata(METHOD_METADATA, handler);
    if (method === undefined) continue;
    const targets = [handler, controller];
    for (const prefix of prefixes) {
      for (const path of asArray(Reflect.getMetadata(PATH_METADATA, handler))) {
        routes.push({
          method: RequestMethod[method],
          path: joinPath(prefix, path),
          controller: controller.name,
          handler: name,
          scope: reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, targets),
          isPublic: reflector.getAllAndOverride<boolean | undefined>(PUBLIC_KEY, targets) === true,
        });
      }
    }
  }
  return routes;
}

/** Every route of every controller in the app's module graph. */
function discoverRoutes(t: TestApp): Route[] {
  const controllers = new Set<new (...args: never[]) => unknown>();
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      if (wrapper.metatype) controllers.add(wrapper.metatype as new (...args: never[]) => unknown);
    }
  }
  return [...controllers].flatMap(routesOf);
}

/** Routes whose authentication is wrong: neither decorator, or both. */
function unauthenticatedOrAmbiguous(routes: Route[]): string[] {
  return routes
    .filter((r) => (r.scope === undefined) === !r.isPublic)
    .map(
      (r) => `${r.controller}.${r.handler} (${r.method} ${r.path}): ${r.isPublic ? 'both @Public and @Authenticated' : 'neither @Authenticated nor @Public'}`,
    );
}

/** A controller as someone might forget to write it: no @Authenticated, no @Public. */
@Controller('api/v1/forgotten')
class ForgottenController {
  @Get()
  listForgotten(): string[] {
    return ['secret'];
  }

  @Get('ok')
  @Authenticated('users:read')
  getRemembered(): string[] {
    return [];
  }

  @Get('both')
  @Public()
  @Authenticated('users:read')
  getConfused(): string[] {
    return [];
  }
}

describe('routes (D1; closed by default)', () => {
  let t: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    t = await createTestApp();
    routes = discoverRoutes(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

  it('finds the controllers (sanity)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(D1.length);
    expect(routes.map(key)).toContain('GET /health');
  });

  it('every route declares @Authenticated(scope) or @Public(), never both', () => {
    expect(unauthenticatedOrAmbiguous(routes)).toEqual([]);
  });

  it('the check catches a route that declares neither, or both', () => {
    expect(unauthenticatedOrAmbiguous(routesOf(ForgottenController))).toEqual([
      'ForgottenController.listForgotten (GET /api/v1/forgotten): neither @Authenticated nor @Public',
      'ForgottenController.getConfused (GET /api/v1/forgotten/both): both @Public and @Authenticated',
    ]);
  });

  it('only the routes D1 lists as public are public', () => {
    expect(
      routes
        .filter((r) => r.isPublic)
        .map(key)
        .sort(),
    ).toEqual([...PUBLIC_ROUTES].sort());
  });

  it('every route of D1 exists with the scope D1 gives it', () => {
    const actual = new Map(routes.map((r) => [key(r), r.scope]));
    const mismatches = D1.map(([method, path, scope]) => ({
      route: `${method} ${path}`,
      expected: scope,
      actual: actual.get(`${method} ${path}`) ?? 'missing',
    })).filter((m) => m.actual !== m.expected);
    expect(mismatches).toEqual([]);
  });

  it('there are no routes beyond D1 (each authenticated route is in the table, once)', () => {
    const expected = new Set(D1.map(([method, path]) => `${method} ${path}`));
    const authenticated = routes.filter((r) => !r.isPublic).map(key);
    expect(authenticated.filter((r) => !expected.has(r))).toEqual([]);
    expect(authenticated.length).toBe(new Set(authenticated).size);
  });

  it('handler names are unique: they are the OpenAPI operationIds (STYLE)', () => {
    const names = routes.map((r) => r.handler);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('Fastify serves every route of D1, the public ones, the OpenAPI document and /docs', () => {
    const fastify = t.app.getHttpAdapter().getInstance();
    const missing = [...D1.map(([m, p]) => [m, p]), ['GET', '/health'], ['GET', '/api/v1/openapi.json'], ['GET', '/docs']].filter(
      ([method, url]) => !fastify.hasRoute({ method: method as 'GET', url }),
    );
    expect(missing).toEqual([]);
  });

  it('the guard refuses (500, revealing nothing) a route that declares neither, should one slip through', async () => {
    const settings = testSettings({ DATABASE_URL: t.db.url });
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)], controllers: [ForgottenController] }).compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(createAdapter(settings), { logger: false, bodyParser: false });
    await configureApp(app, settings);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    try {
      const forgotten = await app.inject({ method: 'GET', url: '/api/v1/forgotten' });
      expect([forgotten.statusCode, forgotten.json()]).toEqual([500, { error: 'Internal server error' }]);
      const remembered = await app.inject({ method: 'GET', url: '/api/v1/forgotten/ok' });
      expect([remembered.statusCode, remembered.json()]).toEqual([401, { error: 'API key required' }]);
    } finally {
      await app.close();
    }
  });

  it.each(D1)('%s %s: the global guard runs (401 without a key, D3 step 2)', async (method, path) => {
    const request: InjectOptions = { method: method as InjectOptions['method'], url: path.replace(/:\w+_id/, '1') };
    if (method === 'POST' || method === 'PATCH') request.payload = {};
    const res = await t.inject(request);
    expect([res.statusCode, res.json()]).toEqual([401, { error: 'API key required' }]);
  });
});
