// @ts-check
// What Linux's /proc says about processes this project started: identity (pid + start time, so a recycled pid is
// never mistaken for ours), descendants (n8n's task-runner children, Postgres backends), CPU time and memory.
// Used by the queue-mode runtime (dev/n8n/queue.js) to stop exactly what it started, and by the benchmarks to say
// which process the time went to. Linux only, like the Debian packages queue mode runs on.
'use strict';

const fs = require('node:fs');

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux build that matters here). */
const TICKS_PER_SECOND = 100;

/**
 * Fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parentheses), or undefined
 * when the process is gone.
 * @param {number} pid
 */
function statFields(pid) {
	let text;
	try {
		text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	// After "pid (comm) ": state is field 3 of stat(5), so fields[i] is field i + 3.
	return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/**
 * A process's identity: its pid and start time (clock ticks after boot). `undefined` when it is gone or a zombie.
 * @param {number} pid
 * @returns {{pid: number, start: string} | undefined}
 */
function identity(pid) {
	const fields = statFields(pid);
	if (!fields || fields[0] === 'Z') return undefined;
	return { pid, start: fields[19] };
}

/** Whether the process recorded as `who` is still that very process (not a recycled pid) and alive. */
function isAlive(/** @type {{pid: number, start: string}} */ who) {
	return identity(who.pid)?.start === who.start;
}

/** Every live process's parent: Map<pid, ppid>. */
function parents() {
	/** @type {Map<number, number>} */
	const map = new Map();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		const fields = statFields(Number(entry));
		if (fields && fields[0] !== 'Z') map.set(Number(entry), Number(fields[1]));
	}
	return map;
}

/**
 * The live descendants of `pid` (children, their children, …), as identities.
 * @param {number} pid @param {Map<number, number>} [tree]
 */
function descendants(pid, tree = parents()) {
	/** @type {Array<{pid: number, start: string}>} */
	const found = [];
	const queue = [pid];
	while (queue.length) {
		const parent = /** @type {number} */ (queue.shift());
		for (const [child, ppid] of tree) {
			if (ppid !== parent) continue;
			const who = identity(child);
			if (who) found.push(who);
			queue.push(child);
		}
	}
	return found;
}

/**
 * CPU seconds (user + system) a process has used, with those of its descendants when `tree` is set (live ones,
 * plus what finished children it waited for used: stat's cutime/cstime).
 * @param {number} pid @param {{tree?: boolean}} [o]
 */
function cpuSeconds(pid, { tree = false } = {}) {
	const own = (/** @type {number} */ p, /** @type {boolean} */ withChildren) => {
		const f = statFields(p);
		if (!f) return 0;
		// utime, stime = fields 14, 15; cutime, cstime = 16, 17.
		const ticks =
			Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0);
		return ticks / TICKS_PER_SECOND;
	};
	let total = own(pid, tree);
	if (tree) for (const child of descendants(pid)) total += own(child.pid, true);
	return total;
}

/** A line of /proc/<pid>/status in kB (VmRSS, VmHWM, …), or undefined. @param {number} pid @param {string} key */
function statusKb(pid, key) {
	try {
		const match = fs
			.readFileSync(`/proc/${pid}/status`, 'utf8')
			.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'));
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined;
	}
}

/** Resident memory now, and the peak since start or since resetPeakRss(), in MiB. @param {number} pid */
function rssMiB(pid) {
	const now = statusKb(pid, 'VmRSS');
	const peak = statusKb(pid, 'VmHWM');
	return {
		now: now === undefined ? NaN : now / 1024,
		peak: peak === undefined ? NaN : peak / 1024,
	};
}

/** Reset a process's peak-RSS mark (VmHWM) to its current RSS: needs to own the process or be root. @param {number} pid */
function resetPeakRss(pid) {
	fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Send `signal` to the process `who` if it is still that process; true when it was sent. */
function signalIfAlive(
	/** @type {{pid: number, start: string}} */ who,
	/** @type {NodeJS.Signals} */ signal,
) {
	if (!isAlive(who)) return false;
	try {
		process.kill(who.pid, signal);
		return true;
	} catch {
		return false;
	}
}

/** Wait until none of `list` is alive, up to `timeoutMs`; resolves to those still alive. */
async function waitGone(
	/** @type {Array<{pid: number, start: string}>} */ list,
	timeoutMs = 10_000,
) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const alive = list.filter(isAlive);
		if (alive.length === 0 || Date.now() > deadline) return alive;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

module.exports = {
	TICKS_PER_SECOND,
	identity,
	isAlive,
	parents,
	descendants,
	cpuSeconds,
	rssMiB,
	resetPeakRss,
	signalIfAlive,
	waitGone,
};
