// Names people give things (API key labels, team names) end up in e-mail subjects, terminal tables and logs. A CR/LF
// pair in a team name would forge a header line in an invite mail's subject; a bidi override would make a label read
// differently from what it is. Such names are refused at the API, not cleaned: what is stored is what was asked for.

/** C0 and C1 controls (NUL, TAB, CR, LF, ESC, DEL…), line and paragraph separators, bidi controls, Unicode tags. */
const UNSAFE_IN_NAMES = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

/** The first character a display name may not hold, as `U+XXXX`, or undefined when the name is fine. */
export function unsafeNameCharacter(name: string): string | undefined {
  const found = UNSAFE_IN_NAMES.exec(name)?.[0];
  return found === undefined ? undefined : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
