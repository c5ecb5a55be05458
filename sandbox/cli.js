#!/usr/bin/env node
'use strict';
// `npm run sandbox`: the sandbox on 127.0.0.1:4010 (flags below), printing what a user needs to connect n8n.
const { parseArgs } = require('util');
const { startSandbox, catalog } = require('./index');
const { MIN_WINDOW_MS, MAX_WINDOW_MS } = require('./ratelimit');
const { MAX_LATENCY_MS } = require('./admin');
const { PROFILES } = require('./compat');

const USAGE = `Usage: npm run sandbox -- [options]
  --port <n>              port (default 4010; 0 = random)
  --host <addr>           interface (default 127.0.0.1)
  --seed <n>              data seed (default ${catalog.DEFAULT_SEED})
  --products <n>          seeded products (default ${catalog.DEFAULT_SIZES.products})
  --orders <n>            seeded orders (default ${catalog.DEFAULT_SIZES.orders})
  --customers <n>         seeded customers (default ${catalog.DEFAULT_SIZES.customers})
  --webhook-url <url>     receiver for webhooks (e.g. an n8n Storefront Trigger's production URL)
  --webhook-secret <s>    signing secret (default ${catalog.DEFAULT_WEBHOOK_SECRET})
  --snapshot <file>       keep state in this JSON file across restarts
  --rate-window-ms <n>    rate-limit window length, ${MIN_WINDOW_MS}-${MAX_WINDOW_MS} (default 60000; the plans' limits per window)
  --no-rate-headers       send no X-RateLimit-* headers (a 429 still carries Retry-After)
  --latency-ms <n>        answer every API request this many milliseconds later, 0-${MAX_LATENCY_MS} (default 0)
  --profile <name>        ${Object.keys(PROFILES).join(' | ')} (default contract): spec-literal answers as the spec read
                          literally (product_id…, no updated_at, {data, meta} lists, {message} errors; sandbox/README.md)
  --quiet                 no request log
  --help`;

function main() {
	let values;
	try {
		({ values } = parseArgs({
			options: {
				port: { type: 'string', default: '4010' },
				host: { type: 'string', default: '127.0.0.1' },
				seed: { type: 'string' },
				products: { type: 'string' },
				orders: { type: 'string' },
				customers: { type: 'string' },
				'webhook-url': { type: 'string' },
				'webhook-secret': { type: 'string' },
				snapshot: { type: 'string' },
				'rate-window-ms': { type: 'string' },
				'no-rate-headers': { type: 'boolean', default: false },
				'latency-ms': { type: 'string' },
				profile: { type: 'string', default: 'contract' },
				quiet: { type: 'boolean', default: false },
				help: { type: 'boolean', default: false },
			},
		}));
	} catch (err) {
		console.error(`${err.message}\n\n${USAGE}`);
		process.exit(2);
	}
	if (values.help) return console.log(USAGE);

	const int = (name, min = 0, max = Infinity) => {
		if (values[name] === undefined) return undefined;
		const n = Number(values[name]);
		if (!Number.isInteger(n) || n < min || n > max) {
			const range = max === Infinity ? `>= ${min}` : `${min}-${max}`;
			console.error(`--${name} must be a whole number ${range} (got "${values[name]}")`);
			process.exit(2);
		}
		return n;
	};
	const sizes = {};
	for (const name of ['products', 'orders', 'customers'])
		if (int(name) !== undefined) sizes[name] = int(name);
	const webhook = {};
	if (values['webhook-url']) webhook.url = values['webhook-url'];
	if (values['webhook-secret']) webhook.secret = values['webhook-secret'];
	if (!Object.hasOwn(PROFILES, values.profile)) {
		console.error(
			`--profile must be one of: ${Object.keys(PROFILES).join(', ')} (got "${values.profile}")`,
		);
		process.exit(2);
	}
	const windowMs = int('rate-window-ms', MIN_WINDOW_MS, MAX_WINDOW_MS);
	const latencyMs = int('latency-ms', 0, MAX_LATENCY_MS);
	const { starter, pro } = catalog.PLANS;
	const limits = `Starter ${starter.limit}, Pro ${pro.limit} per ${windowMs ?? catalog.RATE_WINDOW_MS} ms window`;

	startSandbox({
		port: int('port'),
		host: values.host,
		seed: int('seed'),
		sizes,
		webhook,
		snapshot: values.snapshot,
		quiet: values.quiet,
		// Without --no-rate-headers the profile decides the headers.
		rateLimit: { windowMs, headers: values['no-rate-headers'] ? false : undefined },
		latencyMs,
		profile: values.profile,
	}).then(
		(sb) => {
			const others = catalog.DEFAULT_KEYS.slice(1)
				.map((k) => `${k.key} (${k.plan})`)
				.join(', ');
			console.log(
				[
					'Storefront sandbox is running.',
					`  Base URL        ${sb.baseUrl}`,
					`  API key         ${sb.apiKey} (business plan; also ${others})`,
					`  Webhook secret  ${sb.webhookSecret}`,
					`  Webhook URL     ${sb.webhookUrl ?? '(none yet: --webhook-url or PUT /__admin/webhook)'}`,
					`  Admin URL       ${sb.adminUrl}  (see sandbox/README.md)`,
					`  Store           ${sb.storeId}: ${sb.state.products.size} products, ${sb.state.orders.size} orders, ${sb.state.customers.size} customers`,
					...(values.snapshot ? [`  Snapshot        ${values.snapshot}`] : []),
					...(windowMs !== undefined || values['no-rate-headers']
						? [
								`  Rate limits     ${limits}${values['no-rate-headers'] ? ', no X-RateLimit-* headers' : ''}`,
							]
						: []),
					...(latencyMs ? [`  Latency         ${latencyMs} ms per API request`] : []),
					...(values.profile !== 'contract'
						? [
								`  Profile         ${values.profile} (not the contract's shapes; see sandbox/README.md)`,
							]
						: []),
					'Press Ctrl+C to stop.',
				].join('\n'),
			);
			const shutdown = () => sb.stop().then(() => process.exit(0));
			process.once('SIGINT', shutdown);
			process.once('SIGTERM', shutdown);
		},
		(err) => {
			console.error(`Could not start the sandbox: ${err.message}`);
			process.exit(1);
		},
	);
}

main();
