/**
 * Every response's `Date` header is the simulated clock's, not the machine's: a client learns the API's day from
 * it (the sync plans "today" with it). Set at the Node listener, in front of the fault injector, so injected 5xx
 * and 429 answers carry it too; a handler that sets its own `Date` still wins (writeHead merges over setHeader).
 */
import type { NodeListener } from '../faults/injector.js';
import type { SimClock } from '../state/sim-clock.js';

export function withSimulatedDate(listener: NodeListener, sim: SimClock): NodeListener {
  return (req, res) => {
    res.setHeader('Date', new Date(sim.now()).toUTCString());
    listener(req, res);
  };
}
