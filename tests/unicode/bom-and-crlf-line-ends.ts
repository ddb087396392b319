// A BOM and CRLF line ends: editors count neither as a column.
export function bom() {
  const été = "😀"; let n = 0;
  return () => { n++; return été; };
}
