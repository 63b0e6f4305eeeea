import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..');

/**
 * JavaScript for a child `node` process that runs this tree's TypeScript sources:
 * a require hook for .ts files (transpiled once, cached in `<tmpdir>/<cacheName>`
 * across runs), followed by `then` (which requires the entry). Tests of the CLI and
 * of the server processes use it, so they test the sources rather than a stale dist/.
 */
export function tsEntryScript(cacheName: string, then: string): string {
  return `
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const cacheDir = path.join(require('os').tmpdir(), ${JSON.stringify(cacheName)});
fs.mkdirSync(cacheDir, { recursive: true });
let ts;
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(cacheDir, crypto.createHash('sha1').update(filename).update(source).digest('hex') + '.js');
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require(${JSON.stringify(join(ROOT, 'node_modules', 'typescript'))});
    code = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
        experimentalDecorators: true, emitDecoratorMetadata: true },
    }).outputText;
    fs.writeFileSync(cached + '.' + process.pid, code);
    fs.renameSync(cached + '.' + process.pid, cached);
  }
  module._compile(code, filename);
};
${then}
`;
}
