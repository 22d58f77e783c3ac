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

// The ticks of a log axis from lo to hi that never crowd: 1-2-5 in each decade over at most 2.5 decades,
// 1-3 up to 5, powers of ten beyond (the labels "100" and "70" of a plain log axis collide).
export function logTicks(lo, hi) {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return [];
  const decades = Math.log10(hi / lo);
  const steps = decades <= 2.5 ? [1, 2, 5] : decades <= 5 ? [1, 3] : [1];
  const out = [];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++)
    for (const m of steps) {
      const v = Number((m * 10 ** k).toPrecision(12));
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  return out;
}
