#!/usr/bin/env node
require('../dist/lib/local/cli.js').main();
