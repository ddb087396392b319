// Names that must not break the DOT: quotes, backslashes, <, >, {, }, non-ASCII,
// an astral identifier, a unicode escape in an identifier, and raw tab / bidi
// characters inside a quoted member name.
let émojié = 0;

export function fábricaπ(café: number, ユーザー: string) {
  let π = 1, \u0062ar = 2, 𝑥 = 3, nombre_año = "\"<b>{x}</b>\\";
  const o = {
    "a\"b<c>{d}\\e": () => π++ + café,
    ["k{}<>"]: function () { return \u0062ar + 𝑥 + ユーザー; },
    "\\N \\l \\G": () => nombre_año,
    m() { émojié++; return "\"<>{}\\"; },
  };
  class K {
    static "q<\"{}\\>é	x‮end" = () => π;
  }
  return [o, K];
}
