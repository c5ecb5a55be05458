#!/usr/bin/env node
// @ts-check
// Signed Storefront deliveries through n8n 2.41.1 (Storefront Trigger → No Op, bench/deliveries.js), three ways:
//   single  one n8n process on SQLite (the default set-up)
//   q1      queue mode (dev/n8n/queue.js): main + 1 webhook processor + 1 worker, Postgres, Redis
//   q2      queue mode: main + 1 webhook processor + 2 workers
// each with n8n's default expression engine and with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. Figures:
//   deliveries/s  until every execution has finished and been saved (counted through the main process)
//   ack p50/p99   time from sending a delivery to its 200 acknowledgement, CONCURRENCY in flight
//   CPU           per process, from /proc (user + system time of the process and its children, over the
//                 measured round), in cores: which process is saturated is where the time goes.
// On a 2-core machine the queue set-ups add processes (and Postgres, Redis) on the same two cores, so scale-out
// cannot show here; the figures say what each process costs. Prints figures and ratios, asserts nothing.
// Run after `npm run build` and `node dev/n8n/prepare.js`:  node bench/queue.js
// Knobs: BENCH_DELIVERIES (per round, default 300), BENCH_CONCURRENCY (default 20), BENCH_ROUNDS (default 2, best
// kept), BENCH_SETUPS (default "single,q1,q2"), BENCH_ENGINES (default "default,lazy").
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../dev/n8n/runtime');
const queue = require('../dev/n8n/queue');
const proc = require('../dev/n8n/proc');
const { N8nClient } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { setUp, delivery, triggerWorkflow, executionCount } = require('./deliveries');

const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const WARMUP = 30;

/** @type {Record<string, {label: string, webhooks?: number, workers?: number}>} */
const SETUPS = {
	single: { label: 'single process, SQLite' },
	q1: { label: 'queue: 1 webhook processor + 1 worker', webhooks: 1, workers: 1 },
	q2: { label: 'queue: 1 webhook processor + 2 workers', webhooks: 1, workers: 2 },
};
/** @type {Record<string, {label: string, env: Record<string, string>}>} */
const ENGINES = {
	default: { label: 'default engine (vm)', env: {} },
	lazy: { label: 'vm + LAZY_ACQUIRE', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } },
};
const chosenSetups = (process.env.BENCH_SETUPS || 'single,q1,q2').split(',');
const chosenEngines = (process.env.BENCH_ENGINES || 'default,lazy').split(',');

/** Percentile of sorted numbers. @param {number[]} sorted @param {number} p */
const percentile = (sorted, p) =>
	sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Start one set-up; returns where to send deliveries, the REST client's URL, the processes to watch and stop().
 * @param {string} key @param {Record<string, string>} env
 */
async function start(key, env) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-queue-'));
	const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
	if (key === 'single') {
		const n8n = await runtime.startN8n({
			userFolder: dir,
			logFile: path.join(dir, 'n8n.log'),
			logLevel: 'error',
			env,
		});
		return {
			url: n8n.url,
			webhookUrl: n8n.url,
			processes: () => [{ name: 'n8n', pid: /** @type {number} */ (n8n.child.pid) }],
			stop: async () => {
				await n8n.stop();
				cleanup();
			},
		};
	}
	const { webhooks, workers } = SETUPS[key];
	const topology = await queue.startQueue({
		dir,
		webhooks,
		workers,
		env,
		logLevel: 'error',
		workerLogLevel: 'error',
	});
	return {
		url: topology.url,
		webhookUrl: topology.webhookUrl,
		processes: () => topology.processes().map(({ name, pid }) => ({ name, pid })),
		stop: async () => {
			await topology.stop();
			cleanup();
		},
	};
}

/**
 * Send `count` signed deliveries, CONCURRENCY in flight, and wait until n8n has saved all their executions.
 * @param {N8nClient} client @param {{id: string, url: string}} target @param {number} count
 * @param {() => Array<{name: string, pid: number}>} [processes] measure their CPU over the round
 */
async function round(client, target, count, processes) {
	const payloads = Array.from({ length: count }, (_, i) => delivery(i));
	const before = await executionCount(client, target.id);
	const watched = processes ? processes() : [];
	const cpuBefore = watched.map((p) => proc.cpuSeconds(p.pid, { tree: true }));
	const senderBefore = process.cpuUsage();
	/** @type {number[]} */
	const acks = [];
	const started = process.hrtime.bigint();
	let next = 0;
	const sender = async () => {
		while (next < payloads.length) {
			const { body, signature } = payloads[next++];
			const sent = process.hrtime.bigint();
			const res = await fetch(target.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-service-signature': signature },
				body,
			});
			await res.arrayBuffer();
			acks.push(Number(process.hrtime.bigint() - sent) / 1e6);
			if (res.status !== 200) throw new Error(`${target.url} answered ${res.status}`);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, sender));
	while ((await executionCount(client, target.id)) < before + count)
		await new Promise((resolve) => setTimeout(resolve, 100));
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const senderCpu = process.cpuUsage(senderBefore);
	/** @type {Record<string, number>} cores used on average */
	const cpu = {};
	watched.forEach(
		(p, i) => (cpu[p.name] = (proc.cpuSeconds(p.pid, { tree: true }) - cpuBefore[i]) / seconds),
	);
	cpu.sender = (senderCpu.user + senderCpu.system) / 1e6 / seconds;
	acks.sort((a, b) => a - b);
	return { rate: count / seconds, p50: percentile(acks, 50), p99: percentile(acks, 99), cpu };
}

/** @param {string} key @param {string} engine */
async function measure(key, engine) {
	const t0 = Date.now();
	const running = await start(key, { N8N_EXPRESSION_ENGINE: 'vm', ...ENGINES[engine].env });
	try {
		const client = new N8nClient(running.url);
		const credential = await setUp(client);
		const created = await client.createWorkflow(triggerWorkflow('bench queue', {}, credential));
		const url = setup.productionWebhookUrl(running.webhookUrl, created);
		await setup.activate(client, created.id, url);
		const target = { id: created.id, url };
		console.log(
			`${SETUPS[key].label}, ${ENGINES[engine].label}: up in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${ROUNDS} × ${DELIVERIES} deliveries, ${CONCURRENCY} in flight (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		await round(client, target, WARMUP);
		/** @type {Awaited<ReturnType<typeof round>> | undefined} */
		let best;
		for (let r = 0; r < ROUNDS; r++) {
			const result = await round(client, target, DELIVERIES, running.processes);
			console.log(
				`  round ${r + 1}: ${result.rate.toFixed(1)}/s, ack p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms`,
			);
			if (!best || result.rate > best.rate) best = result;
		}
		return /** @type {NonNullable<typeof best>} */ (best);
	} finally {
		await running.stop();
	}
}

/**
 * CPU per delivery by process (ms), busiest first: unlike rates, this hardly changes when other work shares the
 * cores, so it says where the time goes even on a busy machine.
 * @param {{rate: number, cpu: Record<string, number>}} r
 */
function cpuLine({ rate, cpu }) {
	const entries = Object.entries(cpu).sort((a, b) => b[1] - a[1]);
	return entries.map(([name, cores]) => `${name} ${((cores / rate) * 1000).toFixed(1)}`).join(', ');
}

/** @param {{rate: number, cpu: Record<string, number>}} r */
const cpuTotalMs = ({ rate, cpu }) => (Object.values(cpu).reduce((a, b) => a + b, 0) / rate) * 1000;

async function main() {
	runtime.assertInstalled();
	queue.postgresBinDir();
	queue.redisServerBin();
	/** @type {Record<string, Record<string, Awaited<ReturnType<typeof measure>>>>} */
	const results = {};
	for (const engine of chosenEngines) {
		for (const key of chosenSetups) (results[engine] ??= {})[key] = await measure(key, engine);
	}

	console.log(
		`\nSigned deliveries through n8n 2.41.1 (Storefront Trigger → No Op), ${DELIVERIES} per round, ${CONCURRENCY} in flight, best of ${ROUNDS};`,
	);
	console.log(
		`CPU from /proc over that round (each process with its children), in ms per delivery (load average now ${os.loadavg()[0].toFixed(1)}):\n`,
	);
	console.log(
		'| set-up | engine | deliveries/s | × single | ack p50 | ack p99 | CPU ms per delivery | by process |',
	);
	console.log('|---|---|---|---|---|---|---|---|');
	for (const engine of chosenEngines) {
		for (const key of chosenSetups) {
			const r = results[engine][key];
			const single = results[engine].single;
			const ratio = single ? (r.rate / single.rate).toFixed(2) : '—';
			console.log(
				`| ${SETUPS[key].label} | ${ENGINES[engine].label} | ${r.rate.toFixed(1)} | ${ratio} | ${r.p50.toFixed(0)} ms | ${r.p99.toFixed(0)} ms | ${cpuTotalMs(r).toFixed(1)} | ${cpuLine(r)} |`,
			);
		}
	}
	if (results.default?.single || results.lazy?.single) {
		console.log('\nCPU per delivery against the single process (same engine):');
		for (const engine of chosenEngines) {
			const single = results[engine].single;
			if (!single) continue;
			for (const key of chosenSetups.filter((k) => k !== 'single')) {
				console.log(
					`  ${SETUPS[key].label}, ${ENGINES[engine].label}: ${(cpuTotalMs(results[engine][key]) / cpuTotalMs(single)).toFixed(2)}×`,
				);
			}
		}
	}
	if (results.default && results.lazy) {
		console.log('\nLAZY_ACQUIRE / default engine, deliveries/s:');
		for (const key of chosenSetups)
			console.log(
				`  ${SETUPS[key].label}: ${(results.lazy[key].rate / results.default[key].rate).toFixed(2)}×`,
			);
	}
	// A Node process is not capped at one core here: n8n's vm engine runs its isolates on threads of their own.
	const machineCores = os.cpus().length;
	console.log(
		`\nWhere the time goes (busiest process per run, in cores; the machine has ${machineCores}):`,
	);
	for (const engine of chosenEngines) {
		for (const key of chosenSetups) {
			const { cpu } = results[engine][key];
			const [name, cores] = Object.entries(cpu).sort((a, b) => b[1] - a[1])[0];
			const total = Object.values(cpu).reduce((a, b) => a + b, 0);
			const full = total >= 0.9 * machineCores ? ' — the machine is saturated' : '';
			console.log(
				`  ${SETUPS[key].label}, ${ENGINES[engine].label}: ${name} at ${cores.toFixed(2)} cores; all processes ${total.toFixed(2)} of ${machineCores}${full}`,
			);
		}
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
