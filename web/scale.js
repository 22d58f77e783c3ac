// scale.js - one scale for the same figure of several runs or machines: their ranges merged, the axis's top made round

// The smallest range holding every range given ({lo, hi}); ranges with no finite end are skipped; null when none is left.
export function commonRange(ranges) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of ranges) {
    if (!r || !Number.isFinite(r.lo) || !Number.isFinite(r.hi)) continue;
    lo = Math.min(lo, r.lo);
    hi = Math.max(hi, r.hi);
  }
  return lo <= hi ? { lo, hi } : null;
}

// The round number at or above x (1, 2, 2.5, 5 times a power of ten), so every chart of a row ends its axis on the same tick.
export function niceCeil(x) {
  if (!(x > 0) || !Number.isFinite(x)) return x;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x * (1 - 1e-9)) return m * p;
  return 10 * p;
}

// Whether the article's figures need an axis of their own: when on one axis the runs' tallest value would fill less than
// 2/5 of it (the article's 1,147 % beside a run's 170 %), the runs' differences flatten into the floor.
export function refsOwnAxis(measuredMax, refMax) {
  return measuredMax > 0 && Number.isFinite(refMax) && refMax > 2.5 * measuredMax;
}
