#!/usr/bin/env node
// @ts-check
// `npm run soak`: the soak (test/soak) at a busy shop's size, 500 orders and 5 stops of n8n unless SOAK_ORDERS and
// SOAK_STOPS say otherwise (n8n 2.41.1, the copied install): against both service profiles side by side, each in an
// n8n of its own, then in queue mode (two webhook processors, two workers; the profile drawn from the seed unless
// SOAK_PROFILE names one). Each prints its seed (SOAK_SEED draws it again) and its figures: docs/performance.md, The
// soak. SOAK_QUEUE=0 leaves queue mode out.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const env = {
	SOAK_ORDERS: '500',
	SOAK_STOPS: '5',
	...process.env,
	E2E_N8N_LINE: '2',
	E2E_INSTALL: 'community',
};

/** @param {string[]} projects @returns {Promise<number>} */
const run = (projects) =>
	new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			[
				require.resolve('jest/bin/jest'),
				'--selectProjects',
				...projects,
				`--maxWorkers=${projects.length}`,
				'--ci',
			],
			{ cwd: ROOT, stdio: 'inherit', env },
		);
		child.on('exit', (code) => resolve(code ?? 1));
		child.on('error', () => resolve(1));
	});

(async () => {
	const codes = [await run(['soak', 'soak-spec-literal'])];
	if (process.env.SOAK_QUEUE !== '0') codes.push(await run(['soak-queue']));
	process.exit(codes.every((code) => code === 0) ? 0 : 1);
})();
