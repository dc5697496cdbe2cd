// The MongoDB part of `scripts/containers backup` and `restore`, run inside the resource-api image
// (its `mongodb` driver, its MONGODB_URI), so it works alike against mongo:7 and FerretDB:
//   node --input-type=module - dump            < this file   every collection as EJSON lines on stdout
//   node --input-type=module -e "…" restore FILE               those lines back into an empty database
// A line is {"c": collection, "indexes": [...]} once per collection, then {"c": collection, "d": document}.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { BSON, MongoClient } from 'mongodb';

const { EJSON } = BSON;
const [mode, file] = process.argv.slice(1).filter((a) => a !== '-');
const client = await new MongoClient(process.env.MONGODB_URI).connect();
const db = client.db();
const out = (line) =>
  new Promise((resolve) =>
    process.stdout.write(`${line}\n`) ? resolve() : process.stdout.once('drain', resolve),
  );

if (mode === 'dump') {
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (name.startsWith('system.')) continue;
    const indexes = (await db.collection(name).indexes()).filter((i) => i.name !== '_id_');
    await out(EJSON.stringify({ c: name, indexes }, { relaxed: false }));
    for await (const d of db.collection(name).find({}))
      await out(EJSON.stringify({ c: name, d }, { relaxed: false }));
  }
} else if (mode === 'restore' && file) {
  const batches = new Map();
  const flush = async (name) => {
    const docs = batches.get(name) ?? [];
    if (docs.length) await db.collection(name).insertMany(docs, { ordered: true });
    batches.set(name, []);
  };
  let count = 0;
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (!line) continue;
    const entry = EJSON.parse(line, { relaxed: false });
    if (entry.indexes) {
      for (const { v: _v, ns: _ns, key, name, ...options } of entry.indexes) {
        await db
          .collection(entry.c)
          .createIndex(key, { name, ...options })
          .catch((e) => console.error(`index ${entry.c}.${name}: ${e.message}`));
      }
      continue;
    }
    const batch = batches.get(entry.c) ?? [];
    batch.push(entry.d);
    batches.set(entry.c, batch);
    count++;
    if (batch.length >= 500) await flush(entry.c);
  }
  for (const name of batches.keys()) await flush(name);
  console.log(JSON.stringify({ restored_documents: count }));
} else {
  console.error('usage: dump | restore FILE');
  process.exitCode = 2;
}
await client.close();
