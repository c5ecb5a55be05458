/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-dangerous-functions -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; git is asked whether a file is ignored */
// Documentation URLs that point into this repository on GitHub (codex `primaryDocumentation` / `credentialDocumentation`,
// a credential's `documentationUrl`, a node description's `documentationUrl`): which file and heading each one opens,
// and whether that target exists in this working tree. Shared by the browser suite (the Docs links n8n renders) and the
// unit test over every documentation URL. No network: the check reads the repository, as GitHub would render it.
//
//   https://github.com/<owner>/<repo>                        → README.md
//   https://github.com/<owner>/<repo>#credentials            → README.md, heading slug "credentials"
//   https://github.com/<owner>/<repo>/blob/main/docs/x.md    → docs/x.md
//   https://github.com/<owner>/<repo>/blob/main/docs/x.md#a  → docs/x.md, heading slug "a"
//   https://github.com/<owner>/<repo>/tree/main/docs         → docs/README.md (GitHub shows a folder's README)
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** The repository's root folder (this file is test/helpers/docLinks.ts). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The branch documentation links must point at: GitHub's default branch, the one a release is cut from. */
export const DOC_BRANCH = 'main';

/** `https://github.com/<owner>/<repo>`, from package.json's `repository.url` (`git+https://github.com/….git`). */
export const REPO_URL = (() => {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
	const raw: string = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const match = /github\.com[/:]([^/]+)\/([^/#?]+?)(?:\.git)?\/?$/.exec(raw ?? '');
	if (!match) throw new Error(`package.json's repository.url is not a GitHub repository: ${raw}`);
	return `https://github.com/${match[1]}/${match[2]}`;
})();

export interface DocTarget {
	/** Path of the file in the repository, with `/` separators (`README.md`, `docs/trigger.md`). */
	file: string;
	/** The URL's `#fragment`, decoded: the GitHub slug of a heading in `file`. Absent when the URL has none. */
	heading?: string;
}

/**
 * The file (and heading) a documentation URL opens in this repository. Throws when the URL does not point into this
 * repository's `main` branch on GitHub, or has a query string: n8n appends `?utm_…` to a codex URL as it is
 * (`${url}?${params}`), so a URL with its own query would end up with two `?`.
 */
export function resolveDocUrl(url: string): DocTarget {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`Not a URL: ${JSON.stringify(url)}`);
	}
	const base = new URL(REPO_URL);
	if (parsed.protocol !== 'https:' || parsed.host !== base.host) {
		throw new Error(`${url} does not point into this repository (${REPO_URL})`);
	}
	if (parsed.search) {
		throw new Error(
			`${url} has a query string: n8n appends "?utm_…" to codex URLs, which would give it two "?"`,
		);
	}
	const heading = parsed.hash ? decodeURIComponent(parsed.hash.slice(1)) : undefined;
	if (parsed.hash && !heading) throw new Error(`${url} has an empty #fragment`);
	const segments = parsed.pathname
		.split('/')
		.filter(Boolean)
		.map((segment) => decodeURIComponent(segment));
	const repo = base.pathname.split('/').filter(Boolean);
	if (
		segments.length < 2 ||
		segments[0].toLowerCase() !== repo[0].toLowerCase() ||
		segments[1].toLowerCase() !== repo[1].toLowerCase()
	) {
		throw new Error(`${url} does not point into this repository (${REPO_URL})`);
	}
	const rest = segments.slice(2);
	let file: string;
	if (rest.length === 0) {
		file = 'README.md';
	} else if ((rest[0] === 'blob' || rest[0] === 'tree') && rest.length >= 2) {
		if (rest[1] !== DOC_BRANCH)
			throw new Error(`${url} points at branch "${rest[1]}", not "${DOC_BRANCH}"`);
		const inRepo = rest.slice(2);
		if (inRepo.some((segment) => segment === '.' || segment === '..'))
			throw new Error(`${url} has "." or ".." in its path`);
		if (rest[0] === 'blob') {
			if (inRepo.length === 0) throw new Error(`${url} names no file after /blob/${DOC_BRANCH}/`);
			file = inRepo.join('/');
		} else {
			file = [...inRepo, 'README.md'].join('/');
		}
	} else {
		throw new Error(
			`${url} is neither the repository's page nor a /blob/${DOC_BRANCH}/ or /tree/${DOC_BRANCH}/ path`,
		);
	}
	return heading === undefined ? { file } : { file, heading };
}

/**
 * GitHub's anchor for a heading's text (what github-slugger reproduces): lower-cased, every character that is not a
 * letter, mark, decimal digit, connector (`_`), hyphen or space removed, then each space turned into a hyphen.
 * Duplicates are numbered by {@link headingSlugs}, not here.
 */
export function githubSlug(text: string): string {
	return text
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{Nd}\p{Pc}\- ]/gu, '')
		.replace(/ /g, '-');
}

const ENTITIES: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	nbsp: '\u00a0',
};

/** The text GitHub renders for a heading's inline Markdown (what its slug is made from). */
export function headingText(markdown: string): string {
	// Code spans are literal: split them off so that tags, links and emphasis are only rewritten outside them.
	return markdown
		.split(/(`+)([\s\S]*?[^`])\1(?!`)/)
		.map((part, index) => {
			if (index % 3 === 1) return '';
			if (index % 3 === 2) return part.trim() === '' ? part : part.replace(/^ (.*) $/, '$1');
			return part
				.replace(/!\[[^\]]*\]\([^)]*\)/g, '') // an image renders no text
				.replace(/\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1') // a link renders its text
				.replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1') // an autolink renders its address
				.replace(/<\/?[A-Za-z][^>]*>/g, '') // HTML tags render no text
				.replace(/(^|[^\p{L}\p{N}\\])(_{1,3})(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}])/gu, '$1$3') // _emphasis_
				.replace(/(?<!\\)(\*{1,3}|~~)/g, '') // *emphasis*, ~~strike~~
				.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
					if (name[0] === '#')
						return String.fromCodePoint(
							parseInt(
								name.slice(name[1] === 'x' || name[1] === 'X' ? 2 : 1),
								name[1] === 'x' || name[1] === 'X' ? 16 : 10,
							),
						);
					return ENTITIES[name.toLowerCase()] ?? entity;
				})
				.replace(/\\([!-/:-@[-`{-~])/g, '$1'); // backslash escapes
		})
		.join('')
		.trim();
}

/**
 * The text of every heading of a Markdown file, in order: ATX (`## Title`) and setext (`Title` over `===`/`---`),
 * not inside fenced code blocks.
 */
export function markdownHeadings(markdown: string): string[] {
	const headings: string[] = [];
	let fence: { char: string; length: number } | undefined;
	let paragraph: string[] = [];
	for (const line of markdown.split(/\r?\n/)) {
		if (fence) {
			const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
			if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
			continue;
		}
		const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
		if (open && !(open[1][0] === '`' && line.slice(open[0].length).includes('`'))) {
			fence = { char: open[1][0], length: open[1].length };
			paragraph = [];
			continue;
		}
		const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(line);
		if (atx) {
			// An optional closing sequence of #s (preceded by a space, or the whole content) is not part of the text.
			const content = (atx[2] ?? '').replace(/(^|[ \t]+)#+$/, '');
			headings.push(headingText(content));
			paragraph = [];
			continue;
		}
		if (paragraph.length > 0 && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) {
			headings.push(headingText(paragraph.join(' ')));
			paragraph = [];
			continue;
		}
		// Only plain paragraph text can become a setext heading: not a blank line, list item, quote, table, HTML or
		// indented code.
		if (
			/^\s*$/.test(line) ||
			/^ {0,3}([-+*]|\d{1,9}[.)])(\s|$)/.test(line) ||
			/^ {0,3}[>|<]/.test(line) ||
			(paragraph.length === 0 && /^( {4}|\t)/.test(line))
		) {
			paragraph = [];
		} else {
			paragraph.push(line.trim());
		}
	}
	return headings;
}

/**
 * The anchors GitHub gives a Markdown file's headings, in order. A repeated slug gets `-1`, `-2`, … (the first keeps
 * the bare slug), skipping a suffixed slug that is already taken, as github-slugger does.
 */
export function headingSlugs(markdown: string): string[] {
	const occurrences = new Map<string, number>();
	return markdownHeadings(markdown).map((text) => {
		const original = githubSlug(text);
		let slug = original;
		while (occurrences.has(slug)) {
			const count = occurrences.get(original)! + 1;
			occurrences.set(original, count);
			slug = `${original}-${count}`;
		}
		occurrences.set(slug, 0);
		return slug;
	});
}

/** Whether git ignores a path (so it is never on GitHub, though it may be in this working tree, like dist/). */
function gitIgnores(file: string): boolean {
	try {
		execFileSync('git', ['check-ignore', '-q', '--', file], { cwd: REPO_ROOT, stdio: 'ignore' });
		return true;
	} catch {
		// Exit 1: not ignored. Anything else (no git, not a work tree): nothing to tell, the file's presence decides.
		return false;
	}
}

/**
 * Throw unless a documentation URL opens something that exists in this repository: the file is in the working tree
 * (and not git-ignored, so it is on GitHub once committed), and a `#fragment` is the anchor of one of its headings.
 * Returns the resolved target.
 */
export function assertDocTargetExists(url: string): DocTarget {
	const target = resolveDocUrl(url);
	const absolute = path.join(REPO_ROOT, ...target.file.split('/'));
	if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile())
		throw new Error(`${url}: ${target.file} is not a file in this repository`);
	if (gitIgnores(target.file))
		throw new Error(`${url}: ${target.file} is ignored by git, so it is not on GitHub`);
	if (target.heading !== undefined) {
		if (!/\.(md|markdown)$/i.test(target.file))
			throw new Error(`${url}: a #fragment needs a Markdown file, ${target.file} is not one`);
		const slugs = headingSlugs(fs.readFileSync(absolute, 'utf8'));
		if (!slugs.includes(target.heading)) {
			throw new Error(
				`${url}: ${target.file} has no heading with the anchor "${target.heading}" (its anchors: ${slugs.join(', ')})`,
			);
		}
	}
	return target;
}
