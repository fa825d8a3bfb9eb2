'use strict';
// The cdktf app command of this example (the root cdktf.json "app"). It runs main.ts from the sources: each
// TypeScript file is transpiled as it loads, without type checking (`npm run typecheck` checks the examples), so the
// app needs no build step. The provider it installs does run from `dist/`: `npm run build` first.
const { readFileSync } = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

require('./main.ts');
