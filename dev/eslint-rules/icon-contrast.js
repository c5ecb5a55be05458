'use strict';
// Port of n8n's `icon-contrast` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/icon-contrast.ts and
// src/utils/icon-contrast.ts, docs/rules/icon-contrast.md, read at commit 18926aea8eb3). Not in any published version
// of the plugin. As in n8n: in `.node.ts` and `.credentials.ts` files, each `file:…svg` icon of a node class's
// `description.icon` or a credential class's `icon` field is read; the best WCAG contrast ratio among its fill,
// stroke and stop-color paints (attributes, `style` attributes, `<style>` text; currentColor = black; var() = its
// fallback or black; no fill at all = black) against the theme's node background (light: white, dark: #2b2b2b;
// a single icon is checked against both) must reach the minimum (option `minimum`, default 1.5). Icons with an
// embedded image, or url() paint without gradient stops, are skipped. Severity `warn` in n8n's configs.
// n8n parses the SVG with fast-xml-parser and colours with culori; neither is a dependency here, so this reads
// tags and attributes with regular expressions (an SVG without an <svg> tag is skipped, where n8n skips invalid XML)
// and parses hex, rgb()/rgba(), hsl()/hsla(), `transparent` and the CSS named colours. A colour culori would
// understand but this does not (lab(), oklch(), color(), …) is left out of the comparison, as n8n leaves out paints
// culori cannot parse.

const { readFileSync } = require('fs');
const path = require('path');

const { findClassProperty, findObjectProperty, getStringLiteralValue, isCredentialTypeClass, isFileType, isNodeTypeClass } = require('./utils');

const BACKGROUNDS = {
	light: { r: 1, g: 1, b: 1 },
	dark: { r: 43 / 255, g: 43 / 255, b: 43 / 255 },
};
const BLACK = { r: 0, g: 0, b: 0, alpha: 1 };
const PAINT_PROPERTIES = new Set(['fill', 'stroke', 'stop-color']);

// CSS named colours (the table of the `color-name` package, MIT), name:rrggbb.
const NAMED_COLORS = new Map(
	[
	'aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc bisque:ffe4c4',
	'black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a burlywood:deb887',
	'cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 cornflowerblue:6495ed cornsilk:fff8dc',
	'crimson:dc143c cyan:00ffff darkblue:00008b darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9',
	'darkgreen:006400 darkgrey:a9a9a9 darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00',
	'darkorchid:9932cc darkred:8b0000 darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b',
	'darkslategray:2f4f4f darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493',
	'deepskyblue:00bfff dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0',
	'forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 goldenrod:daa520 gray:808080',
	'green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 hotpink:ff69b4 indianred:cd5c5c indigo:4b0082',
	'ivory:fffff0 khaki:f0e68c lavender:e6e6fa lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd',
	'lightblue:add8e6 lightcoral:f08080 lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3',
	'lightgreen:90ee90 lightgrey:d3d3d3 lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa',
	'lightskyblue:87cefa lightslategray:778899 lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0',
	'lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa',
	'mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 mediumslateblue:7b68ee',
	'mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 midnightblue:191970 mintcream:f5fffa',
	'mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23',
	'orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee',
	'palevioletred:db7093 papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6',
	'purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 saddlebrown:8b4513',
	'salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee sienna:a0522d silver:c0c0c0 skyblue:87ceeb',
	'slateblue:6a5acd slategray:708090 slategrey:708090 snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c',
	'teal:008080 thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff',
	'whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32',
	]
		.join(' ')
		.split(' ')
		.map((entry) => entry.split(':')),
);

const clamp01 = (value) => Math.max(0, Math.min(1, value));

function fromHex(hex) {
	const digits = hex.length <= 4 ? [...hex].map((d) => d + d).join('') : hex;
	const channel = (i) => parseInt(digits.slice(i, i + 2), 16) / 255;
	return { r: channel(0), g: channel(2), b: channel(4), alpha: digits.length === 8 ? channel(6) : 1 };
}

/** A CSS number or percentage; `scale` is what 100% is worth. */
function parseNumber(text, scale) {
	const match = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(%?)$/i.exec(text.trim());
	if (!match) return undefined;
	const value = Number(match[1]);
	return match[2] ? (value / 100) * scale : value;
}

/** The arguments of a functional colour: comma- or space-separated, with an optional `/ alpha`. */
function functionArguments(body) {
	const [main, slashAlpha] = body.split('/');
	const parts = main.includes(',') ? main.split(',') : main.trim().split(/\s+/);
	if (slashAlpha !== undefined) parts.push(slashAlpha);
	return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function parseAlpha(text) {
	if (text === undefined) return 1;
	const alpha = parseNumber(text, 1);
	return alpha === undefined ? undefined : clamp01(alpha);
}

function hslToRgb(h, s, l) {
	const k = (n) => (n + h / 30) % 12;
	const a = s * Math.min(l, 1 - l);
	const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
	return { r: f(0), g: f(8), b: f(4) };
}

function parseHue(text) {
	const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(deg|rad|grad|turn)?$/i.exec(text);
	if (!match) return undefined;
	const value = Number(match[1]);
	const factor = { deg: 1, rad: 180 / Math.PI, grad: 0.9, turn: 360 }[(match[2] ?? 'deg').toLowerCase()];
	return (((value * factor) % 360) + 360) % 360;
}

/** An SVG paint value as an sRGB colour (channels 0–1, alpha), or undefined when it is no colour this can read. */
function parseIconColor(value) {
	const paint = value.trim();
	const lower = paint.toLowerCase();
	if (lower === 'currentcolor') return BLACK;
	if (lower.startsWith('var(')) {
		const variable = /^var\(\s*--[^,()]+(?:,\s*(.+))?\)$/is.exec(paint);
		return variable ? parseIconColor(variable[1] ?? '#000') : undefined;
	}
	if (lower === 'transparent') return { r: 0, g: 0, b: 0, alpha: 0 };
	const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(paint);
	if (hex) return fromHex(hex[1]);
	if (NAMED_COLORS.has(lower)) return fromHex(NAMED_COLORS.get(lower));
	const functional = /^(rgba?|hsla?)\(\s*([^()]*)\)$/i.exec(paint);
	if (!functional) return undefined;
	const args = functionArguments(functional[2]);
	if (args.length !== 3 && args.length !== 4) return undefined;
	const alpha = parseAlpha(args[3]);
	if (alpha === undefined) return undefined;
	if (functional[1].toLowerCase().startsWith('rgb')) {
		const channels = args.slice(0, 3).map((arg) => parseNumber(arg, 255));
		if (channels.some((c) => c === undefined)) return undefined;
		const [r, g, b] = channels.map((c) => clamp01(c / 255));
		return { r, g, b, alpha };
	}
	const h = parseHue(args[0]);
	const s = parseNumber(args[1], 1);
	const l = parseNumber(args[2], 1);
	if (h === undefined || s === undefined || l === undefined) return undefined;
	return { ...hslToRgb(h, clamp01(s), clamp01(l)), alpha };
}

function luminance(color) {
	const linear = (channel) => {
		const value = clamp01(channel);
		return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
	};
	return 0.2126 * linear(color.r) + 0.7152 * linear(color.g) + 0.0722 * linear(color.b);
}

/** WCAG contrast of a paint (composited over the background by its alpha) against the background. */
function contrastRatio(paint, background) {
	const alpha = clamp01(paint.alpha ?? 1);
	const displayed = {
		r: paint.r * alpha + background.r * (1 - alpha),
		g: paint.g * alpha + background.g * (1 - alpha),
		b: paint.b * alpha + background.b * (1 - alpha),
	};
	const a = luminance(displayed);
	const b = luminance(background);
	return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/** The paint colours of an SVG document, as n8n's getSvgPaintColors collects them; null when it skips the icon. */
function getSvgPaintColors(svg) {
	const text = svg.replace(/<!--[\s\S]*?-->/g, '');
	if (!/<svg[\s>]/i.test(text)) return null;

	const colors = [];
	let hasFill = false;
	let hasUrlPaint = false;
	let hasStops = false;
	let hasImage = false;

	const addPaint = (property, value) => {
		const name = property.toLowerCase();
		if (!PAINT_PROPERTIES.has(name)) return;
		if (name === 'fill') hasFill = true;
		if (/url\(/i.test(value)) hasUrlPaint = true;
		const color = parseIconColor(value);
		if (color) colors.push(color);
	};
	const addStyle = (style) => {
		for (const match of style.matchAll(/(?:^|[;{])\s*(fill|stroke|stop-color)\s*:\s*([^;}]+)/gi)) {
			addPaint(match[1], match[2].trim());
		}
	};

	for (const tag of text.matchAll(/<([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/g)) {
		const local = tag[1].split(':').pop().toLowerCase();
		if (local === 'image') hasImage = true;
		if (local === 'stop') hasStops = true;
		for (const attribute of tag[2].matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
			const name = attribute[1].toLowerCase();
			const value = attribute[2] ?? attribute[3];
			if (name === 'style') addStyle(value);
			else addPaint(name, value);
		}
	}
	// Text of <style> elements; CDATA sections in them are not read, as n8n's parser files them apart from the text.
	for (const style of text.matchAll(/<(?:[\w.-]+:)?style\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?style\s*>/gi)) {
		addStyle(style[1].replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ''));
	}

	if (hasImage || (hasUrlPaint && !hasStops)) return null;
	if (!hasFill) colors.push(BLACK);
	return colors.length ? colors : null;
}

module.exports = {
	meta: {
		type: 'suggestion',
		docs: { description: 'Warn when an SVG icon has low contrast on a light or dark node background' },
		messages: { lowContrast: 'Icon has {{ ratio }}:1 contrast on the {{ theme }} theme (minimum {{ minimum }}:1).' },
		schema: [
			{
				type: 'object',
				properties: { minimum: { type: 'number', minimum: 1 } },
				additionalProperties: false,
			},
		],
	},
	contrastRatio,
	getSvgPaintColors,
	parseIconColor,
	create(context) {
		if (!isFileType(context.filename, '.node.ts') && !isFileType(context.filename, '.credentials.ts')) return {};
		const minimum = context.options[0]?.minimum ?? 1.5;

		const checkIcon = (icon, theme) => {
			const iconPath = getStringLiteralValue(icon);
			if (!iconPath?.startsWith('file:') || !iconPath.toLowerCase().endsWith('.svg')) return;
			let svg;
			try {
				svg = readFileSync(path.join(path.dirname(context.filename), iconPath.slice(5)), 'utf8');
			} catch {
				// A missing file is icon-validation's to report (in the published plugin).
				return;
			}
			const colors = getSvgPaintColors(svg);
			if (!colors) return;
			const ratio = Math.max(...colors.map((color) => contrastRatio(color, BACKGROUNDS[theme])));
			if (ratio < minimum) {
				context.report({ node: icon, messageId: 'lowContrast', data: { theme, ratio: ratio.toFixed(2), minimum: String(minimum) } });
			}
		};
		const checkIconValue = (icon) => {
			if (icon.type === 'ObjectExpression') {
				for (const theme of ['light', 'dark']) {
					const variant = findObjectProperty(icon, theme);
					if (variant) checkIcon(variant.value, theme);
				}
			} else {
				checkIcon(icon, 'light');
				checkIcon(icon, 'dark');
			}
		};

		return {
			ClassDeclaration(node) {
				if (isNodeTypeClass(node)) {
					const description = findClassProperty(node, 'description');
					if (description?.value?.type !== 'ObjectExpression') return;
					const icon = findObjectProperty(description.value, 'icon');
					if (icon) checkIconValue(icon.value);
				} else if (isCredentialTypeClass(node)) {
					const icon = findClassProperty(node, 'icon');
					if (icon?.value) checkIconValue(icon.value);
				}
			},
		};
	},
};
