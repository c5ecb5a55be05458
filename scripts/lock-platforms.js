#!/usr/bin/env node
// The npm registry this project is built from serves only the Linux builds of some platform-specific optional
// packages (e.g. @unrs/resolver-binding-darwin-arm64 answers 404). npm then leaves them out of package-lock.json
// and `npm ci` refuses the lockfile as "out of sync". This adds an entry for each missing optional platform
// package, with the os/cpu its name declares and no download address, so `npm ci` knows it and skips it on Linux
// as it would anyway. Run it after every lockfile regeneration: node scripts/lock-platforms.js [path/to/package-lock.json]
const fs = require('fs');
const path = require('path');

const file = path.resolve(process.argv[2] || 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const OS = [
	'android',
	'darwin',
	'freebsd',
	'linux',
	'openharmony',
	'win32',
	'wasm32',
	'sunos',
	'aix',
	'netbsd',
	'openbsd',
];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32'];

let added = 0;
for (const [where, entry] of Object.entries(lock.packages)) {
	for (const [name, range] of Object.entries(entry.optionalDependencies || {})) {
		const nested = `${where ? `${where}/` : ''}node_modules/${name}`;
		if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
		const parts = name.split('/').pop().split('-');
		const os = OS.find((o) => parts.includes(o));
		const cpu = CPU.find((c) => parts.includes(c));
		if (!os) continue; // not a platform package: leave npm's judgement alone
		lock.packages[`node_modules/${name}`] = {
			version: range.replace(/^[\^~=]/, ''),
			...(cpu ? { cpu: [cpu] } : {}),
			...(entry.dev ? { dev: true } : {}),
			optional: true,
			os: [os],
		};
		added++;
	}
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
	`${path.relative(process.cwd(), file)}: ${added} missing optional platform package(s) recorded`,
);
