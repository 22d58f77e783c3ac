// my-run.js - the run this page started: while it is queued or running, Run stays off and the page says where it is in the queue
import { api } from './api.js';
import { FINAL } from './run-view.js';

const POLL_MS = 1000;
const LIST = 100; // the queue is far shorter than this

// onChange({id, status, ahead}) on every change; ahead: runs queued or running before it
export class MyRun {
  constructor(onChange) {
    this.onChange = onChange;
    this.id = null;
    this.status = null;
    this.ahead = null;
    this.starting = false;
    this.timer = null;
  }

  // Run is off while a start is under way or the run it started has not ended.
  busy() {
    return this.starting || (this.id !== null && !FINAL.includes(this.status));
  }

  start() {
    this.starting = true;
    this.onChange(this);
  }

  started(id) {
    this.starting = false;
    this.id = String(id);
    this.status = 'queued';
    this.ahead = null;
    this.poll();
  }

  failed() {
    this.starting = false;
    this.onChange(this);
  }

  // What the stream said about a run: ends the wait when it is this one.
  saw(id, status) {
    if (this.id === null || String(id) !== this.id || !status || status === this.status) return;
    this.status = status;
    if (status !== 'queued') this.ahead = null;
    this.onChange(this);
  }

  async poll() {
    clearTimeout(this.timer);
    if (!this.busy()) return;
    try {
      const data = await api.runs({ limit: LIST });
      const runs = (data && data.runs) || [];
      const me = runs.find((r) => String(r.id) === this.id);
      if (me) this.status = me.status;
      this.ahead = this.status === 'queued'
        ? runs.filter((r) => (r.status === 'queued' || r.status === 'running') && Number(r.id) < Number(this.id)).length
        : null;
    } catch (e) {
      // the next poll tries again; the stream may say it first
    }
    this.onChange(this);
    if (this.busy()) this.timer = setTimeout(() => this.poll(), POLL_MS);
  }
}
