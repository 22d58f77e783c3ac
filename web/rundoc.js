// rundoc.js - the page's one reading of a run document (GET /api/runs/{id}, docs/events.md): what every panel takes from it

// A sample that counts the pages on each node (x the node, y the pages) rather than measuring a rate or a time;
// topology.js draws these on the machine's picture (its pagesOf and pageSeries).
export function isPageCount(s) {
  return !!s && s.unit === 'pages';
}

// The placement parts [{label, threads}], one per label (a later part of the same label replaces the earlier one).
// placement: the document's list, or a Map(label -> threads) a view folded from events.
function placementParts(placement) {
  if (placement instanceof Map) return [...placement].map(([label, threads]) => ({ label, threads: threads || [] }));
  const byLabel = new Map();
  for (const p of Array.isArray(placement) ? placement : []) if (p && typeof p === 'object') byLabel.set(p.label, p.threads || []);
  return [...byLabel].map(([label, threads]) => ({ label, threads }));
}

// Identical placements (same CPUs for the same threads) once, with every part that used them: [{sig, labels, threads}].
export function placementGroups(placement) {
  const groups = new Map();
  for (const { label, threads } of placementParts(placement)) {
    const sig = threads.map((t) => `${t.thread}:${t.cpu}:${t.cpu_observed}:${t.node}`).join('|');
    if (!groups.has(sig)) groups.set(sig, { sig, labels: [], threads });
    groups.get(sig).labels.push(label);
  }
  return [...groups.values()];
}

// Notes once each, warnings apart from the rest (any level but warn reads as info): {warn: [], info: []}.
export function notesByLevel(notes) {
  const seen = new Map();
  for (const n of notes || []) if (n && typeof n === 'object') seen.set(`${n.level} ${n.text}`, n);
  const all = [...seen.values()];
  return { warn: all.filter((n) => n.level === 'warn'), info: all.filter((n) => n.level !== 'warn') };
}

// The summary object as a list of {key, value, unit, lo, hi}, in the document's order (lo, hi: the
// interval the verdict states beside the value, undefined where it states none).
export function summaryEntries(summary) {
  if (!summary || typeof summary !== 'object') return [];
  return Object.entries(summary).map(([key, v]) => {
    const e = { key, value: v ? v.value : undefined, unit: v ? v.unit : undefined };
    if (v && typeof v.lo === 'number' && typeof v.hi === 'number') Object.assign(e, { lo: v.lo, hi: v.hi });
    return e;
  });
}

// Where an imported run came from and what was said of it then and now; null for a run made here.
// today: the headline this server's rules give it ('' when they reach none), null when they were not asked.
export function provenance(doc) {
  const imp = doc && doc.imported;
  if (!imp || typeof imp !== 'object') return null;
  const vt = doc.verdict_today;
  const today = vt && typeof vt === 'object' ? vt.headline || '' : null;
  const then = imp.headline || '';
  return {
    host: imp.host || null,
    client: imp.client || null,
    originalId: imp.original_id ?? null,
    source: imp.source || null,
    at: imp.at || null,
    headline: then,
    today,
    changed: today !== null && today !== then,
  };
}

// "imported from lab1": the words every list and panel uses for an imported run.
export function importedFrom(prov) {
  return `imported from ${(prov && prov.host) || 'another machine'}`;
}

// What a run concluded: today's rules first, else the headline it came with; null when neither says anything.
export function verdictOf(doc) {
  if (!doc) return null;
  return (doc.verdict_today && doc.verdict_today.headline) || doc.headline || null;
}

// Whether key matches pattern as fnmatch(3) with no flags reads it (the verdict's marks and the lessons'
// answer keys are such patterns): '*' any run of characters, '?' one, '[...]' / '[!...]' a set, '\\x' x itself.
export function globMatch(pattern, key) {
  if (typeof pattern !== 'string' || typeof key !== 'string') return false;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '[^]*';
    else if (c === '?') re += '[^]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]);
    else if (c === '[') {
      // a set ends at the first ']' past its first member; without one the '[' is itself
      let j = i + 1;
      if (pattern[j] === '!' || pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) { re += '\\['; continue; }
      let body = pattern.slice(i + 1, j);
      const neg = body[0] === '!' || body[0] === '^';
      if (neg) body = body.slice(1);
      re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = j;
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`).test(key);
}

function escapeRe(c) {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

// A mark as the document holds it, or null when it is not one: {key, mark: 'disowned' | 'at_least', why}.
function markOf(m) {
  if (!m || typeof m !== 'object' || typeof m.key !== 'string' || !m.key) return null;
  if (m.mark !== 'disowned' && m.mark !== 'at_least') return null;
  return { key: m.key, mark: m.mark, why: typeof m.why === 'string' ? m.why : '' };
}

// The marks that speak for a run: today's verdict's first, then the run's own (the mark events it sent).
// A mark only takes a number away or bounds it, so whoever of the two marked a key is heeded.
export function marksOf(doc) {
  if (!doc || typeof doc !== 'object') return [];
  const today = doc.verdict_today && Array.isArray(doc.verdict_today.marks) ? doc.verdict_today.marks : [];
  return [...today, ...(Array.isArray(doc.marks) ? doc.marks : [])].map(markOf).filter(Boolean);
}

// The mark that covers summary key (the first whose pattern matches it), or null.
// doc: a run document, or anything with its marks and verdict_today.
export function markFor(doc, key) {
  return markIn(marksOf(doc), key);
}

// The first of marks (marksOf's list, or a reading's .marks) whose pattern covers key, or null.
export function markIn(marks, key) {
  return (marks || []).find((m) => globMatch(m.key, key)) || null;
}

const list = (v) => (Array.isArray(v) ? v : []);
const object = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : null);

// The normalised view of a run document, or of any part of one (a campaign's summary of a run, a
// document still being written): every field is there, empty when the document lacks it.
//   id, experiment, status, error, headline (the run's own), verdict (verdictOf), params ({}), machine (null when absent),
//   version, estimate_s, progress, created_at, started_at, finished_at, when (started, else created),
//   samples, cells: the points as the document lists them;
//   charts: Map(chart -> {samples, cells, series: [names]}), in the order each chart first appears;
//   placement: [{label, threads}], placementGroups, measured (the threads of 'cpus measured', or null), last (the last part, or null);
//   notes: {warn, info}; summary: [{key, value, unit}], figures: Map(key -> that entry);
//   marks: marksOf(doc), today's first (the run's own: ownMarks);
//   pages: the page-count samples, pageSeries: their series names;
//   provenance: provenance(doc).
export function readRun(doc) {
  const d = object(doc) || {};
  const samples = list(d.samples);
  const cells = list(d.cells);
  const charts = new Map();
  const chart = (id) => {
    if (!charts.has(id)) charts.set(id, { samples: [], cells: [], series: new Set() });
    return charts.get(id);
  };
  const pages = [];
  for (const s of samples) {
    const c = chart(s.chart);
    c.samples.push(s);
    c.series.add(s.series);
    if (isPageCount(s)) pages.push(s);
  }
  for (const x of cells) chart(x.chart).cells.push(x);
  for (const c of charts.values()) c.series = [...c.series];
  const placement = placementParts(d.placement);
  const measured = placement.find((p) => p.label === 'cpus measured');
  const summary = summaryEntries(d.summary);
  let groups = null;
  return {
    id: d.id ?? null,
    experiment: d.experiment ?? null,
    status: d.status || null,
    error: d.error || null,
    headline: d.headline || null,
    verdict: verdictOf(d),
    params: object(d.params) || {},
    machine: object(d.machine),
    version: d.version ?? null,
    estimate_s: d.estimate_s ?? null,
    progress: object(d.progress),
    created_at: d.created_at ?? null,
    started_at: d.started_at ?? null,
    finished_at: d.finished_at ?? null,
    when: d.started_at || d.created_at || null,
    samples,
    cells,
    charts,
    placement,
    // grouped when asked: a 12,000-thread placement is worth signing once, by the panel that shows it
    get placementGroups() {
      if (!groups) groups = placementGroups(placement);
      return groups;
    },
    measured: measured ? measured.threads : null,
    last: placement.length ? placement[placement.length - 1] : null,
    notes: notesByLevel(d.notes),
    marks: marksOf(d),
    ownMarks: list(d.marks).map(markOf).filter(Boolean),
    summary,
    figures: new Map(summary.map((e) => [e.key, e])),
    pages,
    pageSeries: [...new Set(pages.map((s) => s.series))],
    provenance: provenance(d),
  };
}

// Whether a run of params (name -> value) reads the param of schema row `row`, as the server judges a request
// (experiment_reads): not one the experiment never reads (row.unread), and its only and only_here ({param, values})
// met: the param named holds one of values, or for a set has one of them among its choices; values [''] asks that
// it be empty (placement beside cpus). rows: name -> schema row, for the type of the param only names.
export function paramApplies(row, params, rows) {
  if (!row) return true;
  if (row.unread) return false;
  return !unmetOnly(row, params, rows);
}

// The condition of row ({param, values}) that params do not meet, or null: its only, then its only_here (a param
// every experiment takes, or a placement param, that this experiment reads only while one of its own holds a value:
// affinity's cpus while modes has one that pins).
export function unmetOnly(row, params, rows) {
  for (const only of [row && row.only, row && row.only_here]) {
    if (!only || !params || !(only.param in params)) continue;
    const on = rows && rows.get(only.param);
    const v = String(params[only.param] ?? '').trim();
    let holds;
    if (on && on.type === 'set') {
      const chosen = v === 'all' ? (on.choices || []) : v.split(',').map((c) => c.trim());
      holds = chosen.some((c) => c && only.values.includes(c));
    } else holds = only.values.includes(v);
    if (!holds) return only;
  }
  return null;
}

// The params that mattered to a run ([k, v] pairs): one the run did not read (paramApplies: another mode's, one
// the experiment never reads) and an empty value (but cpus, which the placement chose) left out. expParams: the
// experiment's schema params.
export function paramsThatApply(params, expParams) {
  const rows = new Map((expParams || []).map((p) => [p.name, p]));
  return Object.entries(params || {}).filter(([k, v]) => {
    if (!paramApplies(rows.get(k), params, rows)) return false;
    return v !== '' || k === 'cpus';
  });
}
