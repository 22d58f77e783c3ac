// key.js - the sign-in's key, kept by the page in sessionStorage and sent beside the cookie on every request: a cookie reaches every port of the host, this origin's storage does not
const STORE = 'numalab.key';
export const KEY_HEADER = 'X-Numalab-Key';

let memory = null; // where storage is refused (a private window's quota)

export function setKey(key) {
  memory = key || null;
  try {
    if (key) sessionStorage.setItem(STORE, key);
    else sessionStorage.removeItem(STORE);
  } catch (e) { /* the copy in memory serves this page */ }
}

export function getKey() {
  try { return sessionStorage.getItem(STORE) || memory; } catch (e) { return memory; }
}

// The headers that prove this page's sign-in ({} when it has none).
export function keyHeaders() {
  const k = getKey();
  return k ? { [KEY_HEADER]: k } : {};
}

// A file the server sends (a run's JSON, its CSV) fetched with the key and
// saved under name: a plain link would carry the cookie alone.
export async function download(url, name) {
  const res = await fetch(url, { headers: keyHeaders() });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const blob = await res.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name || url.split('/').pop().split('?')[0];
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
