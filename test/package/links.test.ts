/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The documentation's links hold: in README.md, every docs/**/*.md, sandbox/README.md and CHANGELOG.md, each relative
// Markdown link `[…](path)`, image `![…](path)` and HTML `<img src>` / `<a href>` names a file or folder of this
// repository, and each `#anchor` (into a Markdown file, or in the same file) names a heading there, slugged the way
// GitHub does. External links (http, https, mailto, …) are not fetched. Code blocks and code spans are not links.
//
// And the package page on npm shows the README's pictures: npm renders README.md there and resolves its relative
// links and images against package.json's `repository` field (an image `docs/images/x.png` is loaded from
// raw.githubusercontent.com/<owner>/<repo>/HEAD/docs/images/x.png). docs/ is not in the tarball, so the pictures
// appear on npm only when `repository.url` is the GitHub repository's https git URL and the pictures are committed
// there; `homepage` and `bugs.url` name the same repository. docs/releasing.md says the same.
import { existsSync, readFileSync, readdirSync, statSync } from 'fs';
import path from 'path';

import { githubSlug, headingSlugs } from '../helpers/docLinks';

const root = path.resolve(__dirname, '../..');

/** The Markdown files checked, relative to the repository root. */
function markdownFiles(): string[] {
	const walk = (dir: string): string[] =>
		readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
			e.isDirectory()
				? walk(path.posix.join(dir, e.name))
				: e.name.endsWith('.md')
					? [path.posix.join(dir, e.name)]
					: [],
		);
	return ['README.md', 'CHANGELOG.md', 'sandbox/README.md', ...walk('docs')].filter((f) =>
		existsSync(path.join(root, f)),
	);
}

/** For each line of a Markdown text, whether it belongs to a fenced code block (the fences included). */
function inCodeBlock(lines: string[]): boolean[] {
	let open: string | undefined;
	return lines.map((line) => {
		const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
		if (open) {
			if (fence && fence[0] === open[0] && fence.length >= open.length) open = undefined;
			return true;
		}
		if (fence) open = fence;
		return fence !== undefined;
	});
}

/** The text with fenced code blocks, code spans and HTML comments blanked out (same length, same lines). */
function withoutCode(markdown: string): string {
	const blank = (s: string) => s.replace(/[^\n]/g, ' ');
	const lines = markdown.split('\n');
	const code = inCodeBlock(lines);
	return lines
		.map((line, i) => (code[i] ? blank(line) : line))
		.join('\n')
		.replace(/<!--[\s\S]*?-->/g, blank)
		.replace(/(`+)[^`]*?\1/g, blank);
}

type Link = { line: number; target: string };

/** Every link target of a Markdown file: Markdown links and images, reference definitions, HTML src and href. */
function linksOf(markdown: string): Link[] {
	const text = withoutCode(markdown);
	const found: Link[] = [];
	const add = (index: number, target: string) =>
		found.push({ line: text.slice(0, index).split('\n').length, target });
	for (const m of text.matchAll(
		/!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+("[^"]*"|'[^']*'))?\s*\)/g,
	)) {
		add(m.index ?? 0, m[1].replace(/^<|>$/g, ''));
	}
	for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm))
		add(m.index ?? 0, m[1].replace(/^<|>$/g, ''));
	for (const m of text.matchAll(/<(?:img|a)\b[^>]*?\s(?:src|href)\s*=\s*(["'])(.*?)\1/gi))
		add(m.index ?? 0, m[2]);
	return found;
}

/** The anchors a Markdown file has: its headings' slugs (as GitHub makes them: ../helpers/docLinks) and explicit `id` / `name`s. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set(headingSlugs(markdown));
	for (const m of markdown.matchAll(/<[a-z]+\b[^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']/gi))
		anchors.add(m[1]);
	return anchors;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i; // http:, https:, mailto:, …

/** The repository path a relative link of `file` names (without its #anchor or ?query): `file` itself for `#x`. */
function resolveLink(file: string, target: string): string {
	const pathPart = decodeURI(target.split('#')[0].split('?')[0]);
	if (pathPart === '') return file;
	return path.posix.normalize(
		pathPart.startsWith('/')
			? pathPart.slice(1)
			: path.posix.join(path.posix.dirname(file), pathPart),
	);
}

/** What is wrong with one link of `file`, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
	if (EXTERNAL.test(target) || target.startsWith('//')) return undefined;
	const anchor = target.split('#', 2)[1] as string | undefined;
	const resolved = resolveLink(file, target);
	if (resolved.startsWith('../')) return `points outside the repository (${resolved})`;
	const absolute = path.join(root, resolved);
	if (!existsSync(absolute)) return `no such file: ${resolved}`;
	if (anchor === undefined || anchor === '') return undefined;
	if (!statSync(absolute).isFile() || !resolved.endsWith('.md')) return undefined; // only Markdown anchors are known
	if (!anchorsOf(readFileSync(absolute, 'utf8')).has(decodeURIComponent(anchor)))
		return `no heading for #${anchor} in ${resolved}`;
	return undefined;
}

const files = markdownFiles();

test('the checked files include the README and the docs pages', () => {
	expect(files).toEqual(
		expect.arrayContaining([
			'README.md',
			'docs/README.md',
			'docs/installation.md',
			'docs/releasing.md',
		]),
	);
});

test("the link finder sees Markdown links, images and HTML, not code; slugs are GitHub's", () => {
	const sample = [
		'# Demo (`npm start`)',
		'## Reliability: nothing lost, nothing twice',
		'## Notes',
		'## Notes',
		'See [a](docs/a.md#x), ![b](images/b.png "title") and <img src="c.png" width="9">, <a href=\'d.md\'>d</a>.',
		'Not links: `[e](e.md)` and',
		'```',
		'[f](f.md)',
		'```',
		'[g]: g.md',
	].join('\n');
	expect(linksOf(sample).map((l) => l.target)).toEqual([
		'docs/a.md#x',
		'images/b.png',
		'g.md',
		'c.png',
		'd.md',
	]);
	expect([...anchorsOf(sample)]).toEqual([
		'demo-npm-start',
		'reliability-nothing-lost-nothing-twice',
		'notes',
		'notes-1',
	]);
	expect(githubSlug("The duplicate check in n8n's database")).toBe(
		'the-duplicate-check-in-n8ns-database',
	);
	expect(githubSlug('Quick start: react to a new order')).toBe('quick-start-react-to-a-new-order');
	// and it tells a broken link from a good one
	expect(problem('docs/trigger.md', '../README.md#compatibility')).toBeUndefined();
	expect(problem('docs/trigger.md', '#options')).toBeUndefined();
	expect(problem('docs/trigger.md', 'images/trigger-panel.png')).toBeUndefined();
	expect(problem('docs/trigger.md', '#no-such-heading')).toMatch(/no heading/);
	expect(problem('docs/trigger.md', 'installation.md#no-such-heading')).toMatch(/no heading/);
	expect(problem('docs/trigger.md', 'no-such-page.md')).toMatch(/no such file/);
	expect(problem('docs/trigger.md', '../../outside.md')).toMatch(/outside/);
	expect(problem('docs/trigger.md', 'https://docs.n8n.io/x#y')).toBeUndefined();
});

test.each(files)(
	'every relative link and picture in %s resolves (file, and heading for an #anchor)',
	(file) => {
		const markdown = readFileSync(path.join(root, file), 'utf8');
		const broken = linksOf(markdown)
			.map(({ line, target }) => ({ line, target, problem: problem(file, target) }))
			.filter((l) => l.problem !== undefined)
			.map((l) => `${file}:${l.line} ${l.target} — ${l.problem}`);
		expect(broken).toEqual([]);
	},
);

test('every page under docs/ is linked from the README or from the docs index', () => {
	const linked = new Set(
		['README.md', 'docs/README.md'].flatMap((file) =>
			linksOf(readFileSync(path.join(root, file), 'utf8'))
				.filter((l) => !EXTERNAL.test(l.target))
				.map((l) => resolveLink(file, l.target)),
		),
	);
	const pages = files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md');
	expect(pages.filter((page) => !linked.has(page))).toEqual([]);
	expect(linked.has('docs/README.md')).toBe(true);
});

test("package.json names the GitHub repository that npm resolves the README's pictures against", () => {
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	const m = /^git\+https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\.git$/.exec(
		manifest.repository?.url ?? '',
	);
	expect(m).not.toBeNull();
	const [owner, repo] = m!.slice(1);
	const web = `https://github.com/${owner}/${repo}`;
	expect(manifest.repository.type).toBe('git');
	expect(manifest.homepage).toMatch(new RegExp(`^${web.replace(/[.]/g, '\\.')}(#readme|/.*)?$`));
	expect(manifest.bugs?.url).toBe(`${web}/issues`);
});
