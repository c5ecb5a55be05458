// Copies what tsc does not: icons and codex (.node.json) files, each next to its compiled node or credential.
const path = require('path');
const { task, src, dest } = require('gulp');

task('build:icons', copyAssets);

function copyAssets() {
	const nodeSource = path.resolve('nodes', '**', '*.{png,svg,json}');
	const nodeDestination = path.resolve('dist', 'nodes');
	src(nodeSource, { encoding: false }).pipe(dest(nodeDestination));

	const credSource = path.resolve('credentials', '**', '*.{png,svg}');
	const credDestination = path.resolve('dist', 'credentials');
	return src(credSource, { encoding: false }).pipe(dest(credDestination));
}
