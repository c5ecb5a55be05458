// Money and counts as sheets write them (docs/storefront-node.md, "Numbers as sheets write them"): a currency sign or
// code, thousands separators, a decimal comma. A text with two readings is refused by the field, naming both.

/** A sign or code before or after the amount: `$`, `US$`, `€`, `USD`, `19,90 kr`. */
const CURRENCY = String.raw`(?:[A-Z]{3}|[A-Z]{0,2}\$|[€£¥₹₩₽₺₪₫฿₴₦]|kr|zł|Kč|Fr\.)`;
const AMOUNT = new RegExp(
	String.raw`^(-?)(?:${CURRENCY} ?)?(-?)([0-9.,' ]*[0-9])(?: ?${CURRENCY})?$`,
);
/** A number as a program writes it: `1e3`, `19.9`, `.5`. */
const PLAIN = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?$/i;

/** Digits grouped in threes after a first group of one to three (`1,299,000`): what a thousands separator makes. */
const grouped = (parts: string[]) =>
	/^[0-9]{1,3}$/.test(parts[0]) && parts.slice(1).every((part) => /^[0-9]{3}$/.test(part));

/** The readings of a text made of digits and separators: one, or two when a lone `.` or `,` can be either. */
function readings(digits: string): number[] {
	const spaced = /['\s]/.test(digits);
	const marks = [...new Set(digits.replace(/[0-9'\s]/g, ''))];
	const asNumber = (thousands: RegExp, decimal?: string) => {
		const [whole, fraction] = decimal === undefined ? [digits] : splitLast(digits, decimal);
		const parts = whole.split(thousands);
		if (parts.length > 1 && !grouped(parts)) return undefined;
		return Number(`${parts.join('')}.${fraction ?? ''}`);
	};
	const count = (mark: string) => digits.split(mark).length - 1;
	if (marks.length === 0) return [asNumber(/['\s]/)].filter(isNumber);
	if (marks.length === 2) {
		// Both: the last one is the decimal mark, once; the other separates thousands.
		const decimal = digits.lastIndexOf('.') > digits.lastIndexOf(',') ? '.' : ',';
		const other = decimal === '.' ? ',' : '.';
		if (count(decimal) > 1) return [];
		return [asNumber(new RegExp(`[${other}'\\s]`), decimal)].filter(isNumber);
	}
	const [mark] = marks;
	if (count(mark) > 1) return [asNumber(new RegExp(`[${mark}'\\s]`))].filter(isNumber);
	const decimal = asNumber(/['\s]/, mark);
	const [whole, fraction] = splitLast(digits, mark);
	// A lone mark with three digits after it separates thousands too, unless spaces already do, or it follows a 0.
	const thousands =
		!spaced && fraction.length === 3 && !/^0/.test(whole)
			? asNumber(new RegExp(`[${mark}]`))
			: undefined;
	return [thousands, decimal].filter(isNumber);
}

const isNumber = (value: number | undefined): value is number =>
	value !== undefined && Number.isFinite(value);

function splitLast(text: string, mark: string): [string, string] {
	const at = text.lastIndexOf(mark);
	return [text.slice(0, at), text.slice(at + 1)];
}

/**
 * The number a cell shows: a number as it is; text with a currency sign or code, thousands separators or a decimal
 * comma as a person reads it. `whole`: a count, so only whole readings count. Undefined where the text shows no
 * number; both readings where it shows two (`1,299`: 1299 with a thousands separator, 1.299 with a decimal comma).
 */
export function readAmount(value: unknown, whole: boolean): number | [number, number] | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim().replace(/[\u00a0\u202f\u2009]/g, ' ');
	// As a program writes a number, except a lone point before three digits (`1.299`), which has two readings.
	if (PLAIN.test(text) && !/^-?[1-9][0-9]{0,2}\.[0-9]{3}$/.test(text)) return Number(text);
	const match = AMOUNT.exec(text);
	if (!match || (match[1] && match[2])) return undefined;
	const sign = match[1] || match[2] ? -1 : 1;
	const found = readings(match[3].replace(/^[.,]/, '0$&')).map((reading) => sign * reading);
	const fitting = whole ? found.filter(Number.isInteger) : found;
	return fitting.length === 2 ? [fitting[0], fitting[1]] : fitting[0];
}
