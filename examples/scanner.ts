// A compiler-scanner-style factory: mutable cursor state in `var`s shared by
// many inner function declarations, a few helpers, and a returned API object.

export interface Token {
  kind: string;
  text: string;
}

export function createScanner(text: string, skipTrivia: boolean) {
  var pos = 0;
  var tokenStart = 0;
  var token = "";
  var errors: string[] = [];
  const end = text.length;
  const isDigit = (ch: string) => ch >= "0" && ch <= "9";

  function error(message: string) {
    errors.push(`${message} at ${pos}`);
  }

  function scanNumber() {
    while (pos < end && isDigit(text[pos])) pos++;
    return "number";
  }

  function scanIdentifier() {
    while (pos < end && /[A-Za-z_$0-9]/.test(text[pos])) pos++;
    return "identifier";
  }

  function scan(): string {
    tokenStart = pos;
    if (pos >= end) return (token = "eof");
    const ch = text[pos];
    if (skipTrivia && (ch === " " || ch === "\n")) {
      pos++;
      return scan();
    }
    if (isDigit(ch)) return (token = scanNumber());
    if (/[A-Za-z_$]/.test(ch)) return (token = scanIdentifier());
    pos++;
    if (ch !== ";" && ch !== "(" && ch !== ")") error(`unexpected ${ch}`);
    return (token = "punctuation");
  }

  function tokens(): Token[] {
    const out: Token[] = [];
    while (scan() !== "eof") out.push({ kind: token, text: text.slice(tokenStart, pos) });
    return out;
  }

  return {
    scan,
    tokens,
    getTokenText: () => text.slice(tokenStart, pos),
    getErrors: () => errors,
    reset() {
      pos = tokenStart = 0;
      errors = [];
    },
  };
}
