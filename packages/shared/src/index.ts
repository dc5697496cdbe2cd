export * from './scopes.js';
export * from './process.js';
