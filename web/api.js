// api.js - the REST API as promises; errors carry the server's message and field
import { keyHeaders } from './key.js';

export class ApiError extends Error {
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field || null;
  }
}

async function call(method, path, body, headers) {
  const opts = { method, headers: { Accept: 'application/json', ...keyHeaders(), ...(headers || {}) } };
  // every change says JSON, a cancel too: the server refuses others
  if (method !== 'GET') opts.headers['Content-Type'] = 'application/json';
  if (body !== undefined) {
    // a string is sent as it is: a file's text, already JSON
    opts.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, 'the server cannot be reached: is numalab serve still running?');
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      if (res.ok) throw new ApiError(res.status, `the server sent something that is not JSON for ${path}`);
    }
  }
  if (!res.ok) {
    const msg = (data && data.error) || `${method} ${path} answered ${res.status} ${res.statusText}`;
    throw new ApiError(res.status, msg, data && data.field);
  }
  return data;
}

export const api = {
  experiments: () => call('GET', '/api/experiments'),
  topology: () => call('GET', '/api/topology'),
  runs: ({ experiment, machine, limit = 20, offset = 0 } = {}) => {
    const q = new URLSearchParams({ limit: String(limit), offset: String(offset) });
    if (experiment) q.set('experiment', experiment);
    if (machine) q.set('machine', machine);
    return call('GET', `/api/runs?${q}`);
  },
  importRun: (text) => call('POST', '/api/runs/import', text),
  run: (id) => call('GET', `/api/runs/${encodeURIComponent(id)}`),
  start: (experiment, params) => call('POST', '/api/runs', { experiment, params }),
  cancel: (id) => call('DELETE', `/api/runs/${encodeURIComponent(id)}`),
  campaigns: () => call('GET', '/api/campaigns'),
  // one page of a campaign's nodes, with the totals of every page
  campaign: (id, offset = 0, limit = 100) => call('GET', `/api/campaigns/${encodeURIComponent(id)}?offset=${offset}&limit=${limit}`),
  // numalab serve --fleet: a campaign started here ({experiment, params, nodes | partition, constraint, all})
  startCampaign: (req) => call('POST', '/api/campaigns/start', req),
  planCampaign: (req) => call('POST', '/api/campaigns/plan', req),
  cancelCampaign: (id) => call('DELETE', `/api/campaigns/${encodeURIComponent(id)}`),
  campaignEventsUrl: (id) => `/api/campaigns/${encodeURIComponent(id)}/events`,
  // the classroom: its question, the class's guesses (a student's by the class link's sign-in)
  classState: () => call('GET', '/api/class'),
  // who this browser is signed in as, and the name step after joining
  whoami: () => call('GET', '/api/session'),
  rename: (name) => call('PATCH', '/api/session', { name }),
  classOpen: (experiment, lesson) => call('PUT', '/api/class/question', { experiment, lesson }),
  classGuess: (value) => call('POST', '/api/class/guesses', { value }),
  classReveal: () => call('POST', '/api/class/reveal', {}),
  classRun: (run, teacherGuess) => call('POST', '/api/class/run', { run, teacher_guess: teacherGuess }),
  eventsUrl: (id) => `/api/runs/${encodeURIComponent(id)}/events`,
};
