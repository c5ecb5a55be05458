#!/usr/bin/env node
// `npm run bench`: builds the package, then runs every benchmark in bench/ one after the other (never in
// parallel: they would measure each other) and prints their figures. The ones in a real n8n (n8n, queue,
// return-all, dedupe, bulk, flashsale, catalog) prepare the pinned n8n first; queue and dedupe need Debian's postgresql
// and redis-server.
// Pick some with their names: npm run bench -- sandbox trigger
'use strict';
const { spawnSync } = require('child_process');
const path = require('path');

const root = path.resolve(__dirname, '..');
const ALL = [
	'sandbox',
	'trigger',
	'node',
	'poll',
	'catchup',
	'missedEvents',
	'n8n',
	'queue',
	'return-all',
	'dedupe',
	'bulk',
	'flashsale',
	'catalog',
];
const IN_N8N = ['n8n', 'queue', 'return-all', 'dedupe', 'bulk', 'flashsale', 'catalog'];
const chosen = process.argv.slice(2).filter((name) => ALL.includes(name));
const run = (args) =>
	spawnSync(args[0], args.slice(1), { cwd: root, stdio: 'inherit' }).status === 0;

if (!run(['npm', 'run', 'build', '--silent'])) process.exit(1);
let failed = 0;
for (const name of chosen.length ? chosen : ALL) {
	console.log(`\n=== bench/${name}.js`);
	if (IN_N8N.includes(name) && !run([process.execPath, 'dev/n8n/prepare.js'])) process.exit(1);
	if (!run([process.execPath, `bench/${name}.js`])) failed++;
}
process.exit(failed ? 1 : 0);
