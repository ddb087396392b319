// Non-ASCII text before a reported token on the same line: every column counts UTF-16 code units.

// Latin-1 (é: two UTF-8 bytes, one UTF-16 unit) in identifiers before `count`.
export function café(départ: number) {
  const é = départ; let count = é;
  return { inc() { count++; return count; } };
}

// CJK (three UTF-8 bytes, one UTF-16 unit) in a string and an identifier before `total`.
export function 合計(n: number) {
  const 名前 = "日本語"; let total = n;
  return (k: number) => { total += k; return 名前; };
}

// Astral characters (four UTF-8 bytes, two UTF-16 units) before `hits` and before its write.
export function emoji() {
  const s = "😀🎉"; let hits = 0;
  const f = () => { const t = "🚀"; hits++; return s + t; };
  return f;
}
