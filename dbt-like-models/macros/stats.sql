-- Shared statistics for the marts. The runner creates these macros in the warehouse before every build (and in the
-- throwaway database of every unit test), so models and BI tools call them like functions. z = 1.96 (95%).

-- Wilson score interval of x successes in n trials, as proportions in [0, 1]; NULL when n is 0 or NULL:
-- (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n), p = x/n. Clamped: p = 0 or 1 gives 0 or 1 up to 1e-17.
create or replace macro wilson_low(x, n) as
  case when n > 0 then greatest(0.0,
    (x / n + 1.96 ^ 2 / (2 * n) - 1.96 * sqrt((x / n) * (1 - x / n) / n + 1.96 ^ 2 / (4 * n ^ 2))) / (1 + 1.96 ^ 2 / n))
  end;

create or replace macro wilson_high(x, n) as
  case when n > 0 then least(1.0,
    (x / n + 1.96 ^ 2 / (2 * n) + 1.96 * sqrt((x / n) * (1 - x / n) / n + 1.96 ^ 2 / (4 * n ^ 2))) / (1 + 1.96 ^ 2 / n))
  end;

-- Newcombe's hybrid score interval (1998, method 10) of p_after − p_before from the two Wilson intervals:
-- d ∓ sqrt((p_after − l_after)² + (u_before − p_before)²) below, d + sqrt((u_after − p_after)² + (p_before − l_before)²)
-- above. It treats answers as independent. NULL when either n is 0 or NULL.
create or replace macro newcombe_low(x_after, n_after, x_before, n_before) as
  case when n_after > 0 and n_before > 0 then
    x_after / n_after - x_before / n_before
      - sqrt((x_after / n_after - wilson_low(x_after, n_after)) ^ 2
        + (wilson_high(x_before, n_before) - x_before / n_before) ^ 2)
  end;

create or replace macro newcombe_high(x_after, n_after, x_before, n_before) as
  case when n_after > 0 and n_before > 0 then
    x_after / n_after - x_before / n_before
      + sqrt((wilson_high(x_after, n_after) - x_after / n_after) ^ 2
        + (x_before / n_before - wilson_low(x_before, n_before)) ^ 2)
  end;
