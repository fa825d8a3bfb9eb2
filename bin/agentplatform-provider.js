#!/usr/bin/env node
'use strict';
// Installs the agentplatform terraform provider next to a configuration (see lib/provider/cli.ts).
process.exitCode = require('../dist/lib/provider/cli.js').main(process.argv.slice(2));
