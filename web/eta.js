// eta.js - the time a run has left: the server's estimate at its start, then what the steps already done took

// Seconds left, or null when nothing is known. estimate: the server's
// seconds for the whole run (estimate_s); elapsed: seconds since it started;
// done, total: the steps of the last progress event. The more steps are done,
// the more the pace of those steps counts over the estimate.
export function secondsLeft({ estimate, elapsed, done, total }) {
  const est = Number(estimate) > 0 ? Number(estimate) : null;
  const t = Number(elapsed) > 0 ? Number(elapsed) : 0;
  const n = Number(total) > 0 ? Number(total) : 0;
  const d = n ? Math.min(Math.max(Number(done) || 0, 0), n) : 0;
  const fromEstimate = est === null ? null : Math.max(est - t, 0);
  if (!d || !t) return fromEstimate;
  const fromPace = (t / d) * (n - d);
  if (fromEstimate === null) return fromPace;
  const w = d / n;
  return w * fromPace + (1 - w) * fromEstimate;
}

// The line under the progress bar: "about 40 s left", or '' when unknown.
export function etaText(left) {
  if (left === null || left === undefined || !Number.isFinite(left)) return '';
  if (left < 1) return 'almost done';
  if (left < 90) return `about ${Math.round(left)} s left`;
  return `about ${Math.round(left / 60)} min left`;
}

// Keeps what secondsLeft needs as a run's events arrive.
export class Eta {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.estimate = null;
    this.startedMs = null;
    this.done = 0;
    this.total = 0;
  }

  // estimate_s from the "running" status or the run document; startedMs: when it started.
  start(estimate, startedMs) {
    if (Number(estimate) > 0) this.estimate = Number(estimate);
    if (this.startedMs === null) this.startedMs = Number.isFinite(startedMs) ? startedMs : this.now();
  }

  progress(done, total) {
    this.done = Number(done) || 0;
    this.total = Number(total) || 0;
    if (this.startedMs === null) this.startedMs = this.now();
  }

  text() {
    if (this.startedMs === null) return '';
    const elapsed = (this.now() - this.startedMs) / 1000;
    return etaText(secondsLeft({ estimate: this.estimate, elapsed, done: this.done, total: this.total }));
  }
}
