// Waits as the client reckons them: a Retry-After header read, a retry's backoff, a wait as a user reads it.
/** Longest backoff between two tries of a temporary fault. */
export const MAX_BACKOFF_MS = 60_000;

/** Milliseconds to wait from a Retry-After header: delta seconds or an HTTP date. */
export function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(Array.isArray(value) ? value[0] : value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with full jitter in [delay/2, delay], capped. */
export function backoffMs(attempt: number, baseMs: number): number {
	const delay = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
	return Math.round(delay / 2 + (Math.random() * delay) / 2);
}

/** "15 min 0 s", "42 s": a wait as a user reads it. */
export function duration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}
