'use strict';
// Request plumbing shared by the API and the admin API: reading JSON bodies within the contract's limits
// and writing responses.
const { MAX_BODY_BYTES } = require('./catalog');
const { ApiError } = require('./errors');

/** Sends a body that is already text or bytes, with an exact Content-Length. */
function sendRaw(res, status, type, payload, headers) {
	const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
	res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': body.length });
	res.end(body);
}

const sendJson = (res, status, value, headers) =>
	sendRaw(res, status, 'application/json', JSON.stringify(value), headers);

function sendEmpty(res, status, headers) {
	res.writeHead(status, headers);
	res.end();
}

const isJsonType = (type) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type);

/**
 * Reads and parses a JSON request body (contract rows 9, 18): over 1 MiB → 413, another content type → 415,
 * unparsable → 400. Resolves to `undefined` when there is no body at all.
 */
function readJson(req) {
	return new Promise((resolve, reject) => {
		const declared = Number(req.headers['content-length']);
		if (declared > MAX_BODY_BYTES) return reject(tooLarge());
		const type = req.headers['content-type'];
		const chunks = [];
		let size = 0;
		let failed = false;
		req.on('data', (chunk) => {
			if (failed) return;
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				failed = true;
				reject(tooLarge());
			} else chunks.push(chunk);
		});
		req.on('error', (err) => !failed && reject(err));
		req.on('end', () => {
			if (failed) return;
			const text = Buffer.concat(chunks).toString('utf8');
			if (text.trim() === '') {
				if (type && !isJsonType(type)) return reject(unsupported(type));
				return resolve(undefined);
			}
			if (!type || !isJsonType(type)) return reject(unsupported(type));
			try {
				resolve(JSON.parse(text));
			} catch (err) {
				reject(
					new ApiError(400, 'invalid_json', `The request body is not valid JSON: ${err.message}`),
				);
			}
		});
	});
}

const tooLarge = () =>
	new ApiError(
		413,
		'payload_too_large',
		`The request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB)`,
	);
const unsupported = (type) =>
	new ApiError(
		415,
		'unsupported_media_type',
		`Request bodies must be application/json${type ? `, not ${type.split(';')[0]}` : ''}`,
	);

module.exports = { sendRaw, sendJson, sendEmpty, readJson };
