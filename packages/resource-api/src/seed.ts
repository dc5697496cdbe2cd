/**
 * `node dist/seed.js`: fills the demo school (run by scripts/start after the auth server's
 * `seed-admin`). Idempotent; prints what it inserted. Reads the same environment as the service
 * (only MONGODB_URI matters).
 */
import mongoose from 'mongoose';
import { ConfigError, loadConfig } from './config.js';
import { seedSchool } from './seed/seed-school.js';
import { initAreas } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`resource-api seed: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const connection = await mongoose
    .createConnection(config.MONGODB_URI, { serverSelectionTimeoutMS: 5000, autoIndex: false })
    .asPromise();
  try {
    await initAreas(connection);
    const report = await seedSchool(connection);
    const inserted = Object.values(report).reduce((n, r) => n + r.inserted, 0);
    const existing = Object.values(report).reduce((n, r) => n + r.existing, 0);
    console.warn(`resource-api seed: ${inserted} documents inserted, ${existing} already there`);
  } finally {
    await connection.close();
  }
}

main().catch((err: unknown) => {
  console.error('resource-api seed: failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
