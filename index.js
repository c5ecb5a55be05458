// The package entry point: n8n loads the files listed under "n8n" in package.json; this file also lets
// `require('n8n-nodes-storefront')` hand the compiled node and credential classes from dist/ to code and tests.
module.exports = {
	...require('./dist/credentials/StorefrontApi.credentials'),
	...require('./dist/nodes/Storefront/Storefront.node'),
	...require('./dist/nodes/StorefrontTrigger/StorefrontTrigger.node'),
	...require('./dist/nodes/StorefrontPollingTrigger/StorefrontPollingTrigger.node'),
};
