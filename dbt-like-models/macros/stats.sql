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
-- above. It treats answers as independent. NULL when either n is 0 or NULL. newcombe_low_sq / newcombe_high_sq are the
-- squared distances from d to each bound (the MOVER terms a weighted sum of changes combines: the trend's strata).
create or replace macro newcombe_low_sq(x_after, n_after, x_before, n_before) as
  case when n_after > 0 and n_before > 0 then
    (x_after / n_after - wilson_low(x_after, n_after)) ^ 2 + (wilson_high(x_before, n_before) - x_before / n_before) ^ 2
  end;

create or replace macro newcombe_high_sq(x_after, n_after, x_before, n_before) as
  case when n_after > 0 and n_before > 0 then
    (wilson_high(x_after, n_after) - x_after / n_after) ^ 2 + (x_before / n_before - wilson_low(x_before, n_before)) ^ 2
  end;

create or replace macro newcombe_low(x_after, n_after, x_before, n_before) as
  x_after / n_after - x_before / n_before - sqrt(newcombe_low_sq(x_after, n_after, x_before, n_before));

create or replace macro newcombe_high(x_after, n_after, x_before, n_before) as
  x_after / n_after - x_before / n_before + sqrt(newcombe_high_sq(x_after, n_after, x_before, n_before));

-- Mantel–Haenszel weight of a stratum with n_after and n_before answers (the inverse of the variance of its change
-- when both sides share one variance): n_after·n_before / (n_after + n_before); 0 when either is 0.
create or replace macro mh_weight(n_after, n_before) as
  case when n_after > 0 and n_before > 0 then n_after * n_before / (n_after + n_before) else 0 end;

-- The 97.5% quantile of Student's t with df degrees of freedom (two-sided 95% intervals): the table for df ≤ 30,
-- the Cornish–Fisher expansion beyond (error < 0.001 there). NULL when df < 1.
create or replace macro t975(df) as
  case
    when df is null or df < 1 then null
    when df <= 30 then [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
      2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
      2.042][cast(floor(df) as integer)]
    else 1.959964 + (1.959964 ^ 3 + 1.959964) / (4 * df)
      + (5 * 1.959964 ^ 5 + 16 * 1.959964 ^ 3 + 3 * 1.959964) / (96 * df ^ 2)
  end;

-- Standard normal upper tail P(Z > z) (Abramowitz & Stegun 26.2.17, absolute error < 7.5e-8).
create or replace macro normal_sf(z) as
  case when z >= 0 then
    exp(-z * z / 2) / sqrt(2 * pi()) * (0.319381530 * (1 / (1 + 0.2316419 * z))
      - 0.356563782 * (1 / (1 + 0.2316419 * z)) ^ 2 + 1.781477937 * (1 / (1 + 0.2316419 * z)) ^ 3
      - 1.821255978 * (1 / (1 + 0.2316419 * z)) ^ 4 + 1.330274429 * (1 / (1 + 0.2316419 * z)) ^ 5)
  else
    1 - exp(-z * z / 2) / sqrt(2 * pi()) * (0.319381530 * (1 / (1 - 0.2316419 * z))
      - 0.356563782 * (1 / (1 - 0.2316419 * z)) ^ 2 + 1.781477937 * (1 / (1 - 0.2316419 * z)) ^ 3
      - 1.821255978 * (1 / (1 - 0.2316419 * z)) ^ 4 + 1.330274429 * (1 / (1 - 0.2316419 * z)) ^ 5)
  end;

-- Share of voice: a brand's share R = x / m of the brand mentions of n answers, each brand once per answer (x answers
-- name the brand; m mentions in all). A ratio of sums with the answer as the cluster: its delta-method variance is
-- V = n/(n−1) · (x − 2R·c + R²·s) / m², where c = Σ over the answers naming the brand of the brands each names and
-- s = Σ over all n answers of (brands named)². The interval is Wilson's at the effective number of mentions
-- R(1−R)/V, capped at m: never narrower than if each mention were an answer of its own (at small n the variance
-- estimate can come out near 0, e.g. two answers naming the same two brands). m itself when R is 0 or 1 or V is 0.
-- NULL when m is 0, n < 2, or c or s is NULL (days built before the mart kept them). As proportions in [0, 1].
create or replace macro share_effective_n(x, m, c, s, n) as
  case when m > 0 and n > 1 and c is not null and s is not null then
    case when x > 0 and x < m and x - 2 * (x / m) * c + (x / m) ^ 2 * s > 0
      then least(m, (x / m) * (1 - x / m) / ((n / (n - 1)) * (x - 2 * (x / m) * c + (x / m) ^ 2 * s) / m ^ 2))
      else m
    end
  end;

-- share_effective_n is bound to a lambda's parameter e, so that its text appears once: a macro is pasted in as text,
-- and wilson_low(x / m * share_effective_n(…), share_effective_n(…)) held share_effective_n twenty times, which
-- DuckDB planned in about 0.1 s a call site (the share_of_voice report took 4× as long; docs/exports.md, "Reading
-- the warehouse"). The values are the same.
create or replace macro share_low(x, m, c, s, n) as
  list_transform([share_effective_n(x, m, c, s, n)], e -> wilson_low(x / m * e, e))[1];

create or replace macro share_high(x, m, c, s, n) as
  list_transform([share_effective_n(x, m, c, s, n)], e -> wilson_high(x / m * e, e))[1];

-- The standard normal quantile z with P(Z > z) = p, for 0 < p < 1 (Abramowitz & Stegun 26.2.23, absolute error
-- < 4.5e-4): the one-sided critical value of a test at level p. NULL outside (0, 1).
create or replace macro normal_isf(p) as
  case
    when p is null or p <= 0 or p >= 1 then null
    when p <= 0.5 then
      sqrt(-2 * ln(p)) - (2.515517 + 0.802853 * sqrt(-2 * ln(p)) + 0.010328 * (-2 * ln(p)))
        / (1 + 1.432788 * sqrt(-2 * ln(p)) + 0.189269 * (-2 * ln(p)) + 0.001308 * sqrt(-2 * ln(p)) ^ 3)
    else
      -(sqrt(-2 * ln(1 - p)) - (2.515517 + 0.802853 * sqrt(-2 * ln(1 - p)) + 0.010328 * (-2 * ln(1 - p)))
        / (1 + 1.432788 * sqrt(-2 * ln(1 - p)) + 0.189269 * (-2 * ln(1 - p)) + 0.001308 * sqrt(-2 * ln(1 - p)) ^ 3))
  end;

-- Minimum detectable change at 80% power of a one-sided test at level alpha against "the change exceeds margin",
-- with standard error se (all in the same unit): margin + (z_{1−alpha} + z_{0.8}) · se, z_{0.8} = 0.841621. A true
-- change of that size is discovered 80% of the time (in its own direction). NULL when alpha or se is NULL.
create or replace macro mde80(margin, alpha, se) as
  margin + (normal_isf(alpha) + 0.841621) * se;
