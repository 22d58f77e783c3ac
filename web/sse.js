// sse.js - an event stream read through fetch, so that it carries the page's key (EventSource sends no headers); reconnects with Last-Event-ID as EventSource does
import { keyHeaders } from './key.js';

const GIVE_UP = 5; // reconnections in a row that bring no event

// Opens url and calls onEvent(type, data, id) for each event; onError({status, message})
// once when the server refuses the stream or it cannot be reached again. Returns {close()}.
export function openStream(url, onEvent, onError) {
  const ctl = new AbortController();
  let last = null;
  let retry = 1000;
  let misses = 0;
  let closed = false;

  function dispatch(block) {
    let type = 'message';
    const data = [];
    let id = null;
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
    }
    if (id !== null) last = id;
    if (!data.length) return;
    misses = 0;
    onEvent(type, data.join('\n'), id);
  }

  async function once() {
    const headers = { Accept: 'text/event-stream', ...keyHeaders() };
    if (last !== null) headers['Last-Event-ID'] = last;
    const res = await fetch(url, { headers, signal: ctl.signal, cache: 'no-store' });
    if (!res.ok) {
      let msg = `the stream answered ${res.status}`;
      try { msg = (await res.json()).error || msg; } catch (e) { /* not JSON */ }
      const err = new Error(msg);
      err.status = res.status;
      throw err;
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end;
      while (!closed && (end = buf.indexOf('\n\n')) >= 0) {
        dispatch(buf.slice(0, end));
        buf = buf.slice(end + 2);
      }
      if (closed) return;
    }
  }

  (async () => {
    while (!closed) {
      try {
        await once();
      } catch (e) {
        if (closed) return;
        if (e.status) { closed = true; onError({ status: e.status, message: e.message }); return; }
      }
      if (closed) return;
      if (++misses > GIVE_UP) { closed = true; onError({ status: 0, message: 'the server cannot be reached' }); return; }
      await new Promise((r) => setTimeout(r, retry));
    }
  })();

  return { close() { closed = true; ctl.abort(); } };
}
