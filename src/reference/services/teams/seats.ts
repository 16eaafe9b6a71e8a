/** Seats per plan (the spec names a seat limit and no numbers: decided, docs/reference-decisions-services.md). */
import type { Plan } from '../../state/plans.js';

export const SEAT_LIMITS: Record<Plan, number | null> = {
  skip_trial: 2,
  basic: 5,
  pro: 15,
  enterprise: null,
};
