'use strict';

/** An API error as the contract describes it (row 10): status, snake_case code, sentence, optional field details. */
class ApiError extends Error {
	constructor(status, code, message, details, headers) {
		super(message);
		this.status = status;
		this.code = code;
		this.details = details && details.length ? details : undefined;
		this.headers = headers;
	}
}

const validationError = (details, message = 'The request body failed validation') =>
	new ApiError(422, 'validation_failed', message, details);
const notFound = (what, id) => new ApiError(404, 'not_found', `${what} ${id} not found`);

module.exports = { ApiError, validationError, notFound };
