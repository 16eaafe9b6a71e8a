#!/usr/bin/env node
import { main } from './main.js';

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`vwh: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
