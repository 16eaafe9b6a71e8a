import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(process.argv[2], { access_mode: 'READ_ONLY' });
const c = await inst.connect();
console.log((await c.runAndReadAll(process.argv[3])).getRows());
