/** The p-th percentile (0–100) of `values` by the nearest-rank method; NaN for none. For printed figures, never asserted. */
export const percentile = (values: number[], p: number) => {
	if (!values.length) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
