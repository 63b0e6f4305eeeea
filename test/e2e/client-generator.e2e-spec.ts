import { spawnSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, relative } from 'path';

import { ROOT } from '../setup/paths';

/**
 * Issue 10: the committed openapi.json serves a second client generator as
 * well as openapi-typescript (clients/typescript). @hey-api/openapi-ts
 * generates a fetch client from it, and a small program that a client
 * developer would write type-checks against that client with `tsc --noEmit`
 * (integer ids, path parameters named for their resource, typed bodies,
 * answers and errors); a program passing a string id does not.
 */

const BIN = join(ROOT, 'node_modules', '.bin');

/** What a client developer writes: create, get, move and list tasks, reading typed answers and errors. */
const PROGRAM = `
import { client } from './generated/client.gen.js';
import { createComment, createTask, deleteTask, getTask, listTasks, updateTask } from './generated/sdk.gen.js';
import type { Task, TaskPage } from './generated/types.gen.js';

client.setConfig({ baseUrl: 'http://localhost:3000', headers: { Authorization: 'Bearer svc_example' } });

export async function walkThrough(): Promise<number> {
  const created = await createTask({ body: { list_id: 3, title: 'Ship it', priority: 'high', assignee_ids: [7] } });
  if (created.error) return created.error.error.length;
  const id: number = created.data.id;
  const task: Task | undefined = (await getTask({ path: { task_id: id } })).data;
  const moved = await updateTask({ path: { task_id: id }, body: { list_id: 4, due_date: null, custom_fields: [{ id: 2, value: null }] } });
  const listed = (await listTasks({ path: { workspace_id: 1 }, query: { page: 1, limit: 50 } })).data;
  // Offset pages carry page numbers; keyset pages (cursor or include_total=false) carry next_cursor.
  const page: TaskPage | undefined = listed && 'total_pages' in listed ? listed : undefined;
  const subtaskId: number | undefined = page?.data[0]?.subtasks[0]?.id;
  const keyset = (await listTasks({ path: { workspace_id: 1 }, query: { priority: ['urgent', 'high'], sort: '-due_date', include_total: false } })).data;
  const next: string | null | undefined = keyset && 'next_cursor' in keyset ? keyset.next_cursor : undefined;
  if (next) await listTasks({ path: { workspace_id: 1 }, query: { priority: ['urgent', 'high'], sort: '-due_date', cursor: next } });
  const comment = await createComment({ path: { task_id: id }, body: { content: '<p>on it</p>' } });
  await deleteTask({ path: { task_id: id } });
  return (task?.identifier ?? 0) + (moved.data?.list_id ?? 0) + (subtaskId ?? 0) + (comment.data?.user_id ?? 0) + page!.total_pages;
}
`;

/** The same client called with a string id and an unknown parameter name: must not type-check. */
const WRONG_PROGRAM = `
import { getTask, listTasks } from './generated/sdk.gen.js';

export const byString = getTask({ path: { task_id: '41' } });
export const byOldName = listTasks({ path: { id: 1 } });
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022', 'dom', 'dom.iterable'],
    types: [],
  },
};

describe('a second generator: @hey-api/openapi-ts (issue 10)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heyapi-client-'));
    const r = spawnSync(join(BIN, 'openapi-ts'), ['-i', join(ROOT, 'openapi.json'), '-o', join(dir, 'generated')], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`openapi-ts failed: ${r.stderr || r.stdout}`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Type-checks `source` against the generated client; tsc's diagnostics, empty when it compiles. */
  function typecheck(name: string, source: string): { status: number | null; output: string } {
    writeFileSync(join(dir, `${name}.ts`), source);
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ ...TSCONFIG, files: [`${name}.ts`] }));
    const r = spawnSync(join(BIN, 'tsc'), ['-p', join(dir, `tsconfig.${name}.json`)], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, output: r.stdout + r.stderr };
  }

  it('generates one function per operation, with the path parameter named for its resource', () => {
    const sdk = readFileSync(join(dir, 'generated', 'sdk.gen.ts'), 'utf8');
    expect(sdk).toMatch(/export const getTask = [\s\S]*?url: '\/api\/v1\/tasks\/\{task_id\}'/);
    // One per operation of the committed document (API routes, health probes, metrics), with a few known by name.
    const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, object> };
    const operationCount = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(operationCount).toBeGreaterThanOrEqual(44);
    expect([...sdk.matchAll(/^export const (\w+) = /gm)].map((m) => m[1]).length).toBe(operationCount);
    expect(sdk).toMatch(/export const addTaskLabel = [\s\S]*?url: '\/api\/v1\/tasks\/\{task_id\}\/labels\/\{label_id\}'/);
    expect(sdk).toMatch(/export const listEvents = [\s\S]*?url: '\/api\/v1\/workspaces\/\{workspace_id\}\/events'/);
    expect(sdk).toMatch(/export const getReadiness = [\s\S]*?url: '\/health\/ready'/);
    const types = readFileSync(join(dir, 'generated', 'types.gen.ts'), 'utf8');
    expect(types).toMatch(/export type GetTaskData = \{[\s\S]*?path: \{[\s\S]*?task_id: number;/);
    // Issue 32: request bodies typed, by this generator and by openapi-typescript (clients/typescript).
    for (const generated of [types, readFileSync(join(ROOT, 'clients', 'typescript', 'schema.d.ts'), 'utf8')]) {
      expect(generated).not.toContain('unknown[]');
      expect(generated).toMatch(/assignee_ids\?: Array<number>|assignee_ids\?: number\[\]/);
      expect(generated).toMatch(/custom_fields\?: Array<CustomFieldValueInput>|custom_fields\?: components\["schemas"\]\["CustomFieldValueInput"\]\[\]/);
    }
  });

  it('type-checks a client program with tsc --noEmit', () => {
    expect(typecheck('program', PROGRAM)).toEqual({ status: 0, output: '' });
  }, 120_000);

  it('rejects a string id and the old parameter name `id`', () => {
    const { status, output } = typecheck('wrong', WRONG_PROGRAM);
    expect(status).not.toBe(0);
    expect(output).toContain('wrong.ts(4,');
    expect(output).toContain("Type 'string' is not assignable to type 'number'");
    expect(output).toMatch(/wrong\.ts\(5,.*'id' does not exist/);
  }, 120_000);
});

/**
 * Issue 32: a third generator, not TypeScript: the Java JAX-RS client template of
 * openapi-generator-plus (npm), compiled with javac against the jars Debian ships
 * (.ci/run installs them: libjackson2-annotations-java, libjaxrs-api-java,
 * libjaxb-api-java, libgeronimo-annotation-1.3-spec-java, libswagger-core-java).
 * Request bodies are typed (ids as `long`, id lists as `List<Long>`, custom-field
 * values as a list of their model), a client program compiles against them and a
 * program passing a string id does not.
 * What the Debian jars cannot compile is left out and said here: ApiProviders.java
 * (Jackson's jsr310 and jdk8 modules, not packaged by Debian) and the multipart
 * upload's implementation, impl/AttachmentsApiImpl.java (Apache CXF, not packaged);
 * and Debian's swagger-annotations is 2.1, whose `@Schema(required = ...)` the 2.2
 * `requiredMode = ...` of the generated code is rewritten to.
 */
const JAVA_JARS = ['jackson-annotations', 'jaxrs-api', 'jaxb-api', 'geronimo-annotation-1.3-spec', 'swagger-annotations'].map(
  (j) => `/usr/share/java/${j}.jar`,
);
const JAVA_LEFT_OUT = ['ApiProviders.java', join('impl', 'AttachmentsApiImpl.java')];
const JAVA_PACKAGE = 'work.tracking.client';

/** What a Java client developer writes against the generated interfaces: create a task, edit it with If-Match. */
const JAVA_PROGRAM = `
package example;

import java.util.List;
import ${JAVA_PACKAGE}.TasksApi;
import ${JAVA_PACKAGE}.model.CreateTask;
import ${JAVA_PACKAGE}.model.CustomFieldValueInput;
import ${JAVA_PACKAGE}.model.TaskWrite;
import ${JAVA_PACKAGE}.model.UpdateTask;
import ${JAVA_PACKAGE}.params.UpdateTaskParams;

public class Program {
  public static long walkThrough(TasksApi tasks) throws Exception {
    CreateTask body = new CreateTask().listId(3L).title("Ship it").priority(CreateTask.PriorityEnum.HIGH)
        .assigneeIds(List.of(7L)).labelIds(List.of(2L))
        .customFields(List.of(new CustomFieldValueInput().id(5L).value(CustomFieldValueInput.Value.StringValueWrapper.createStringValueWrapper("M"))));
    TaskWrite created = tasks.createTask(java.util.UUID.randomUUID().toString(), body);
    UpdateTaskParams params = new UpdateTaskParams(created.getId());
    params.setIfMatch("\\"etag\\"");
    TaskWrite edited = tasks.updateTask(params, new UpdateTask().title("Shipped"));
    return edited.getId() + created.getIdentifier();
  }
}
`;

/** The same calls with a string id: must not compile. */
const JAVA_WRONG_PROGRAM = `
package example;

import ${JAVA_PACKAGE}.model.CreateTask;

public class Wrong {
  public static CreateTask body() {
    return new CreateTask().listId("3").title("Ship it");
  }
}
`;

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path).map((f) => join(name, f)) : [name];
  });
}

describe('a third generator, not TypeScript: openapi-generator-plus Java JAX-RS client, compiled with javac (issue 32)', () => {
  let dir: string;
  let sources: string;

  beforeAll(() => {
    const missing = JAVA_JARS.filter((jar) => !existsSync(jar));
    if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: apt-get install the Debian packages .ci/run names`);
    dir = mkdtempSync(join(tmpdir(), 'java-client-'));
    writeFileSync(join(dir, 'config.yml'), `package: ${JAVA_PACKAGE}\nuseBeanValidation: false\n`);
    const r = spawnSync(
      join(BIN, 'openapi-generator-plus'),
      ['-c', join(dir, 'config.yml'), '-o', join(dir, 'generated'), '-g', '@openapi-generator-plus/java-jaxrs-client-generator', join(ROOT, 'openapi.json')],
      {
        encoding: 'utf8',
        timeout: 120_000,
        cwd: ROOT,
      },
    );
    if (r.status !== 0) throw new Error(`openapi-generator-plus failed: ${r.stderr || r.stdout}`);
    sources = join(dir, 'generated', ...JAVA_PACKAGE.split('.'));
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** javac over `files` (paths under `dir`) with the Debian jars and `classpath`; its diagnostics. */
  function javac(files: string[], out: string, classpath: string[] = []): { status: number | null; output: string } {
    mkdirSync(join(dir, out), { recursive: true });
    writeFileSync(join(dir, `${out}.files`), files.join('\n'));
    // No annotation processors to look for; the C1 compiler only: a short run (a third of the time).
    const r = spawnSync(
      'javac',
      [
        '-J-XX:TieredStopAtLevel=1',
        '-J-XX:+UseSerialGC',
        '-proc:none',
        '-nowarn',
        '-encoding',
        'UTF-8',
        '-d',
        join(dir, out),
        '-cp',
        [...JAVA_JARS, ...classpath].join(':'),
        `@${join(dir, `${out}.files`)}`,
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 240_000,
      },
    );
    return { status: r.status, output: r.stdout + r.stderr };
  }

  it('types request bodies: ids as long, id lists as List<Long>, custom-field values as their model; one Cache-Control enum', () => {
    const createTask = readFileSync(join(sources, 'model', 'CreateTask.java'), 'utf8');
    expect(createTask).toContain('private long listId;');
    expect(createTask).toContain('private java.util.List<java.lang.Long> assigneeIds;');
    expect(createTask).toContain('private java.util.List<java.lang.Long> labelIds;');
    expect(createTask).toContain(`private java.util.List<${JAVA_PACKAGE}.model.CustomFieldValueInput> customFields;`);
    expect(readFileSync(join(sources, 'model', 'CustomFieldValueInput.java'), 'utf8')).toContain('private long id;');
    // No field typed as any value in any model.
    const models = filesUnder(join(sources, 'model'))
      .map((f) => readFileSync(join(sources, 'model', f), 'utf8'))
      .join('\n');
    expect(models).not.toMatch(/private (java\.util\.List<)?java\.lang\.Object>? /);
    expect(filesUnder(join(sources, 'model')).filter((f) => /^CacheControl/.test(f))).toEqual(['CacheControl.java']);
  });

  it('compiles with javac against the Debian jars, and so does a client program; a string id does not', () => {
    const all = filesUnder(join(dir, 'generated')).filter((f) => f.endsWith('.java'));
    const leftOut = JAVA_LEFT_OUT.map((f) => join(...JAVA_PACKAGE.split('.'), f));
    expect(leftOut.filter((f) => !all.includes(f))).toEqual([]);
    // The left-out files are the only ones that need the jars Debian does not have.
    for (const f of all.filter((f) => !leftOut.includes(f)))
      expect({ f, jar: /jackson\.datatype|jackson\.jaxrs|org\.apache\.cxf/.test(readFileSync(join(dir, 'generated', f), 'utf8')) }).toEqual({ f, jar: false });
    const compiled = all
      .filter((f) => !leftOut.includes(f))
      .map((f) => {
        const path = join(dir, 'generated', f);
        // Debian's swagger-annotations 2.1 says `required = true|false` where 2.2 says `requiredMode = ...`.
        writeFileSync(
          path,
          readFileSync(path, 'utf8').replace(
            /requiredMode = io\.swagger\.v3\.oas\.annotations\.media\.Schema\.RequiredMode\.(NOT_)?REQUIRED/g,
            (_m, not) => `required = ${not ? 'false' : 'true'}`,
          ),
        );
        return relative(dir, path);
      });
    mkdirSync(join(dir, 'example'));
    writeFileSync(join(dir, 'example', 'Program.java'), JAVA_PROGRAM);
    expect(compiled.length).toBeGreaterThan(100);
    expect(javac([...compiled, join('example', 'Program.java')], 'classes')).toEqual({ status: 0, output: '' });

    writeFileSync(join(dir, 'example', 'Wrong.java'), JAVA_WRONG_PROGRAM);
    const wrong = javac([join('example', 'Wrong.java')], 'wrong', [join(dir, 'classes')]);
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toContain('incompatible types: String cannot be converted to long');
  }, 300_000);
});
