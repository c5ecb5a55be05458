'use strict';
// Sandbox throughput: GET /v1/products?limit=100 (a full 100-item page) with keep-alive connections.
// The sandbox runs in this process (one core: Node's event loop); the load comes from a child process
// (raw keep-alive sockets), so the two do not share a core. Target (issue 3): >= 3000 requests/s.
// Usage: node bench/sandbox.js [--seconds 5] [--connections 32]
const path = require('path');
const net = require('net');
const { fork } = require('child_process');
const { parseArgs } = require('util');

const TARGET = 3000;

function loadGenerator() {
	// Child: N keep-alive connections over raw sockets (one request in flight per connection), so the load
	// generator costs little CPU next to the server; responses are framed by their Content-Length.
	process.once('message', ({ url, key, seconds, connections, distinct }) => {
		const { hostname, port, pathname, search } = new URL(url);
		const end = Date.now() + seconds * 1000;
		let ok = 0;
		let failed = 0;
		let bytes = 0;
		let sent = 0;
		let open = connections;
		const requestBytes = () => {
			// `distinct`: a new query string every time, so no cached page can be reused (serialisation each time).
			const target = distinct
				? `${pathname}${search}&page=${1 + (sent % 30)}&r=${sent}`
				: pathname + search;
			sent++;
			return `GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\nAccept: application/json\r\nConnection: keep-alive\r\n\r\n`;
		};
		const done = () => {
			if (--open === 0) process.send({ ok, failed, bytes }, () => process.exit(0));
		};
		for (let i = 0; i < connections; i++) {
			const socket = net.connect(Number(port), hostname);
			socket.setNoDelay(true);
			let buffer = Buffer.alloc(0);
			let need = -1; // bytes of the current response (headers + body), once known
			let status = 0;
			socket.on('connect', () => socket.write(requestBytes()));
			socket.on('data', (chunk) => {
				buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
				for (;;) {
					if (need < 0) {
						const headerEnd = buffer.indexOf('\r\n\r\n');
						if (headerEnd < 0) return;
						const head = buffer.subarray(0, headerEnd).toString('latin1');
						status = Number(head.slice(9, 12));
						const length = /\r\ncontent-length: *(\d+)/i.exec(head);
						need = headerEnd + 4 + (length ? Number(length[1]) : 0);
					}
					if (buffer.length < need) return;
					bytes += need;
					if (status === 200) ok++;
					else failed++;
					buffer = buffer.subarray(need);
					need = -1;
					if (Date.now() >= end) {
						socket.end();
						return done();
					}
					socket.write(requestBytes());
				}
			});
			socket.on('error', () => {
				failed++;
				done();
			});
		}
	});
}

async function main() {
	const { values } = parseArgs({
		options: {
			seconds: { type: 'string', default: '5' },
			connections: { type: 'string', default: '32' },
		},
	});
	const seconds = Number(values.seconds);
	const connections = Number(values.connections);
	const { startSandbox } = require(path.join(__dirname, '..', 'sandbox'));
	const sb = await startSandbox({ quiet: true }); // default sizes: 3000 products
	const url = `${sb.baseUrl}/products?limit=100`;

	const run = (secs, distinct = false) =>
		new Promise((resolve, reject) => {
			const child = fork(__filename, ['--child'], { stdio: 'inherit' });
			child.once('message', resolve);
			child.once('error', reject);
			child.send({ url, key: sb.apiKey, seconds: secs, connections, distinct });
		});

	await run(1); // warm-up: JIT, connection set-up, page cache
	let failed = 0;
	for (const [label, distinct] of [
		['same page (served from the page cache)', false],
		['a different query every request (serialised every time)', true],
	]) {
		const cpuBefore = process.cpuUsage();
		const started = process.hrtime.bigint();
		const result = await run(seconds, distinct);
		const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
		const cpu = process.cpuUsage(cpuBefore);
		const rps = result.ok / elapsed;
		const cpuShare = (cpu.user + cpu.system) / 1e6 / elapsed;
		failed += result.failed;
		console.log(
			`sandbox GET /v1/products?limit=100, ${label}: ${connections} keep-alive connections, ${seconds} s`,
		);
		console.log(
			`  requests ok: ${result.ok}, failed: ${result.failed}, ${(result.bytes / Math.max(1, result.ok) / 1024).toFixed(1)} KiB per response`,
		);
		console.log(
			`  throughput: ${rps.toFixed(0)} req/s   (target ${TARGET} req/s, ratio ${(rps / TARGET).toFixed(2)}x)`,
		);
		console.log(
			`  sandbox process CPU: ${(cpuShare * 100).toFixed(0)}% of one core (below 100%: the load generator is the limit)`,
		);
		const capacity = rps / cpuShare;
		console.log(
			`  sandbox capacity at one full core (req/s per CPU-second): ${capacity.toFixed(0)} req/s, ratio ${(capacity / TARGET).toFixed(2)}x`,
		);
	}
	await sb.stop();
	if (failed > 0) process.exitCode = 1;
}

if (process.argv.includes('--child')) loadGenerator();
else
	main().catch((err) => {
		console.error(err);
		process.exit(1);
	});
