export * from './scopes.js';
export * from './process.js';
export * from './log-destination.js';
export * from './request-id.js';
export * from './startup-errors.js';
export * from './secrets.js';
export * from './caching.js';
