/**
 * A `node -e` script that runs a TypeScript entry of this tree in a child
 * process: a require hook transpiles .ts files (once, cached across runs in
 * node_modules/.cache of the checkout, else in a directory of this OS user's in
 * the temp directory, else not at all: never a place another user made), then `entry` (relative to the repository root, which
 * must be the child's cwd) is required, with `argv0` as process.argv[1] and the
 * child's own arguments after it when given (left alone otherwise: a cluster
 * primary forks workers from process.argv[1], so the script must sit in a file).
 * So child-process tests run the sources, not a stale dist/.
 */
export function tsEntryScript(entry: string, argv0?: string): string {
  return `
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const cacheDir = [
  path.join(process.cwd(), 'node_modules', '.cache', 'wt-ts-child'),
  path.join(require('os').tmpdir(), 'wt-ts-child-' + process.getuid()),
].find((dir) => {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).uid === process.getuid();
  } catch {
    return false;
  }
});
let ts;
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = cacheDir && path.join(cacheDir, crypto.createHash('sha1').update(filename).update(source).digest('hex') + '.js');
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
  } catch {
    code = undefined;
  }
  if (code === undefined) {
    ts ??= require(require.resolve('typescript', { paths: [process.cwd()] })); // from the cwd, like the entry
    code = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
        experimentalDecorators: true, emitDecoratorMetadata: true },
    }).outputText;
    if (cached) try {
      fs.writeFileSync(cached + '.' + process.pid, code);
      fs.renameSync(cached + '.' + process.pid, cached);
    } catch {
      // no cache this time
    }
  }
  module._compile(code, filename);
};
${argv0 === undefined ? '' : `process.argv = [process.argv[0], ${JSON.stringify(argv0)}, ...process.argv.slice(1)];`}
require(require('path').resolve(${JSON.stringify(entry)}));
`;
}
