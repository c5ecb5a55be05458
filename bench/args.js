'use strict';
// `--name value` numeric options of the benchmarks, e.g. node bench/node.js --rounds 15
const args = process.argv.slice(2);

/** The number after `--name`, or `fallback` when the option is absent. */
exports.numberArg = (name, fallback) => {
	const i = args.indexOf(`--${name}`);
	return i >= 0 ? Number(args[i + 1]) : fallback;
};
