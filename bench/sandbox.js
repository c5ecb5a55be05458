'use strict';
// Sandbox throughput: GET /v1/products?limit=100 (a full 100-item page) with keep-alive connections.
// The sandbox runs in this process (one core: Node's event loop); the load comes from a child process,
// so the two do not share a core. Target (issue 3): >= 3000 requests/s.
// Usage: node bench/sandbox.js [--seconds 5] [--connections 32]
const path = require('path');
const http = require('http');
const { fork } = require('child_process');
const { parseArgs } = require('util');

const TARGET = 3000;

async function loadGenerator() {
	// Child: hammer the URL with N keep-alive connections for the given time, report counts.
	process.once('message', ({ url, key, seconds, connections }) => {
		const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
		const end = Date.now() + seconds * 1000;
		let ok = 0;
		let failed = 0;
		let bytes = 0;
		let running = connections;
		const one = () => {
			if (Date.now() >= end) {
				if (--running === 0) process.send({ ok, failed, bytes }, () => process.exit(0));
				return;
			}
			http
				.get(url, { agent, headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } }, (res) => {
					res.on('data', (c) => (bytes += c.length));
					res.on('end', () => {
						if (res.statusCode === 200) ok++;
						else failed++;
						one();
					});
				})
				.on('error', () => {
					failed++;
					one();
				});
		};
		for (let i = 0; i < connections; i++) one();
	});
}

async function main() {
	const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } });
	const seconds = Number(values.seconds);
	const connections = Number(values.connections);
	const { startSandbox } = require(path.join(__dirname, '..', 'sandbox'));
	const sb = await startSandbox({ quiet: true }); // default sizes: 3000 products
	const url = `${sb.baseUrl}/products?limit=100`;

	const run = (secs) =>
		new Promise((resolve, reject) => {
			const child = fork(__filename, ['--child'], { stdio: 'inherit' });
			child.once('message', resolve);
			child.once('error', reject);
			child.send({ url, key: sb.apiKey, seconds: secs, connections });
		});

	await run(1); // warm-up: JIT, connection set-up, page cache
	const cpuBefore = process.cpuUsage();
	const started = process.hrtime.bigint();
	const result = await run(seconds);
	const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
	const cpu = process.cpuUsage(cpuBefore);
	await sb.stop();

	const rps = result.ok / elapsed;
	const cpuShare = (cpu.user + cpu.system) / 1e6 / elapsed;
	console.log(`sandbox GET /v1/products?limit=100 (${connections} keep-alive connections, ${seconds} s)`);
	console.log(`  requests ok: ${result.ok}, failed: ${result.failed}, ${(result.bytes / result.ok / 1024).toFixed(1)} KiB per response`);
	console.log(`  throughput: ${rps.toFixed(0)} req/s   (target ${TARGET} req/s, ratio ${(rps / TARGET).toFixed(2)}x)`);
	console.log(`  sandbox process CPU: ${(cpuShare * 100).toFixed(0)}% of one core (below 100%: the load generator is the limit)`);
	console.log(`  capacity estimate at 100% of one core: ${(rps / cpuShare).toFixed(0)} req/s (ratio ${(rps / cpuShare / TARGET).toFixed(2)}x)`);
	if (result.failed > 0) process.exitCode = 1;
}

if (process.argv.includes('--child')) loadGenerator();
else
	main().catch((err) => {
		console.error(err);
		process.exit(1);
	});
