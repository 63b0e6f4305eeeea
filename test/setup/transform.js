/**
 * Jest transformer: TypeScript sources and the ESM-only packages of NestJS 12
 * become CommonJS for Jest's module registry (Jest on Node 20 cannot require
 * ESM). Type checking is `npm run typecheck`'s job, not the test run's.
 */
const crypto = require('crypto');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  allowJs: true,
  sourceMap: false,
  inlineSourceMap: true,
};

module.exports = {
  getCacheKey(source, filePath) {
    return crypto.createHash('sha1').update('v4').update(filePath).update(source).digest('hex');
  },
  process(source, filePath) {
    // CommonJS packages pass through untouched; only ESM syntax needs compiling.
    if (filePath.endsWith('.js') && !/^\s*(import|export)\b/m.test(source)) return { code: source };
    // import.meta does not exist in CommonJS; the file URL is all packages read from it.
    // An ESM file's own `const require = createRequire(import.meta.url)` would
    // clash with the CommonJS wrapper's `require`, which does the same job.
    const text = filePath.endsWith('.js')
      ? source
          .replace(/^\s*const require = (?:\w+\.)?createRequire\(import\.meta\.url\);?\s*$/m, '')
          .replace(/import\.meta\.url/g, "require('url').pathToFileURL(__filename).href")
          // Other import.meta uses (@nestjs/terminus: dirname, resolve): their CommonJS equivalents.
          .replace(/import\.meta\.dirname/g, '__dirname')
          .replace(/import\.meta\.filename/g, '__filename')
          .replace(/import\.meta\.resolve\(/g, 'require.resolve(')
      : source;
    const out = ts.transpileModule(text, { compilerOptions, fileName: filePath });
    return { code: out.outputText };
  },
};
