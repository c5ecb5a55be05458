// Copies what tsc does not: icons and codex (.node.json) files, each next to its compiled node or credential.
const path = require('path');
const { task, src, dest, parallel } = require('gulp');

const copy = (folder, pattern) =>
	function copyAssets() {
		return src(path.resolve(folder, '**', pattern), { encoding: false }).pipe(
			dest(path.resolve('dist', folder)),
		);
	};

task(
	'build:icons',
	parallel(copy('nodes', '*.{png,svg,json}'), copy('credentials', '*.{png,svg}')),
);
