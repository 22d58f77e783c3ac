// csv.js - CSV as the page writes it: one field as RFC 4180 quotes it, formula text neutralised (as server/rundoc/csv.c does)

// A plain decimal number ("-1.5", "2e-3") stays as it is: a minus sign is no formula.
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// One field: text a spreadsheet would run as a formula (= + - @ tab CR first) gets a leading ' inside quotes.
export function csvField(v) {
  if (v === null || v === undefined) return '';
  const s = String(v);
  const formula = /^[=+\-@\t\r]/.test(s) && !NUMBER.test(s);
  if (!formula && !/[",\r\n]/.test(s)) return s;
  return `"${formula ? "'" : ''}${s.replace(/"/g, '""')}"`;
}

// Rows (arrays of values) as CSV text, CRLF after each.
export function csvText(rows) {
  return rows.map((r) => r.map(csvField).join(',') + '\r\n').join('');
}
