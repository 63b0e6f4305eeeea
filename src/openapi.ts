import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { writeFileSync } from 'fs';
import { resolve } from 'path';

import { AppModule } from './app.module';
import { createAdapter } from './common/http/adapter';
import { processSettings } from './config/settings';
import { buildOpenApiDocument } from './openapi/openapi.document';
import { serializeDocument } from './openapi/openapi.finalize';

/**
 * `npm run openapi`: writes the OpenAPI document to openapi.json at the
 * repository root (or the path given as first argument). The app is created in
 * preview mode: the module graph is scanned but no provider is instantiated,
 * so no database is needed or touched.
 */
async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? resolve(__dirname, '..', 'openapi.json'));
  const settings = processSettings();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(settings), createAdapter(settings), {
    preview: true,
    logger: ['error'],
    abortOnError: false,
  });
  const text = serializeDocument(buildOpenApiDocument(app));
  await app.close();
  writeFileSync(out, text);
  process.stderr.write(`OpenAPI document written to ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
