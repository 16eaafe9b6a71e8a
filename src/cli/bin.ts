#!/usr/bin/env node
import { main } from './main.js';

// `vwh models ls | head` closes the pipe before vwh is done writing: the reader has what it wanted, so stop quietly
// (exit 0, as `ls | head` does) instead of dying on an unhandled EPIPE with a stack trace. Anything the command was
// writing to the warehouse is committed or rolled back by DuckDB as on any other exit.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`vwh: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
