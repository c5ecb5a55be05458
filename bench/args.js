'use strict';
// `--name value` numeric options of the benchmarks, e.g. node bench/node.js --rounds 15; `--name` switches and
// `--name word` options.
const args = process.argv.slice(2);

/** The number after `--name`, or `fallback` when the option is absent. @param {string} name @param {number} fallback */
exports.numberArg = (name, fallback) => {
	const i = args.indexOf(`--${name}`);
	return i >= 0 ? Number(args[i + 1]) : fallback;
};

/** The word after `--name`, or `fallback` when the option is absent. @param {string} name @param {string} fallback */
exports.stringArg = (name, fallback) => {
	const i = args.indexOf(`--${name}`);
	return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};

/** Whether the switch `--name` is given. @param {string} name */
exports.flag = (name) => args.includes(`--${name}`);
