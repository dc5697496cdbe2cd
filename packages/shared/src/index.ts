export * from './scopes.js';
