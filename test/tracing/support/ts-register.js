/**
 * Lets a child Node process run the project's TypeScript sources directly: `node -r <this file> script.ts`.
 * Each .ts file is transpiled on load (no type check), as ts-jest does for the tests themselves.
 */
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false },
  });
  module._compile(outputText, filename);
};
