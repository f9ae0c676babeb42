import fc from 'fast-check'

/**
 * A hostile value as each wire format carries it: `json` is raw JSON text
 * (so 1e309 stays Infinity and -0 stays -0 once parsed; JSON.stringify would
 * turn them into null and 0), `text` is raw percent-encoded URL text (lone
 * surrogates as the bytes a careless client sends, ED A0 80), or a list for a
 * repeated query key.
 */
export interface Hostile {
  label: string
  json: string
  text: string | string[]
}

const WORD = 'w'.repeat(20_000)

/** The fixed list: every kind the brief names. */
export const HOSTILE: Hostile[] = [
  { label: 'NUL', json: '"a\\u0000b"', text: 'a%00b' },
  { label: 'lone high surrogate', json: '"x\\ud800"', text: 'x%ED%A0%80' },
  { label: 'lone low surrogate', json: '"\\udc00y"', text: '%ED%B0%80y' },
  { label: '1e309 (Infinity)', json: '1e309', text: '1e309' },
  { label: '-1e309 (-Infinity)', json: '-1e309', text: '-1e309' },
  { label: '-0', json: '-0', text: '-0' },
  { label: '2^63', json: '9223372036854775808', text: '9223372036854775808' },
  { label: '-2^63 - 1', json: '-9223372036854775809', text: '-9223372036854775809' },
  { label: '20,000-character word', json: `"${WORD}"`, text: WORD },
  { label: 'object', json: '{"a":{"b":[1]}}', text: '%7B%22a%22%3A1%7D' },
  { label: 'array', json: '[1,"two",null]', text: ['1', 'two'] },
  { label: 'boolean', json: 'true', text: 'true' },
  { label: 'null', json: 'null', text: 'null' },
  { label: 'empty string', json: '""', text: '' },
  { label: 'NaN text', json: '"NaN"', text: 'NaN' }
]

/** The numbers that pass a type check and only a bound refuses: sent to every integer and number field, every run. */
export const NUMERIC = HOSTILE.filter((value) => ['1e309 (Infinity)', '-1e309 (-Infinity)', '2^63', '-0'].includes(value.label))

/** Raw JSON text of a string, lone surrogates kept (as \\uXXXX escapes). */
function jsonString (text: string): string {
  return JSON.stringify(text)
}

/** Percent-encodes text, a lone surrogate as its three generalized UTF-8 bytes (encodeURIComponent throws on it). */
export function percentEncode (text: string): string {
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
    } else {
      out += encodeURIComponent(char)
    }
  }
  return out
}

/** Ordinary text with one bad character slipped in somewhere: NUL, a lone surrogate or a control character. */
const taintedText: fc.Arbitrary<Hostile> = fc.tuple(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('\u0000', '\ud800', '\udfff', '\u0007', '\u001b'),
  fc.string({ maxLength: 12 })
).map(([before, bad, after]) => {
  const text = `${before}${bad}${after}`
  return { label: `text ${JSON.stringify(text)}`, json: jsonString(text), text: percentEncode(text) }
})

/** Any hostile value: one of the fixed list, or tainted text. */
export const hostileValue: fc.Arbitrary<Hostile> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE) }, { weight: 1, arbitrary: taintedText })

/** The seed of every property here: runs are repeatable. */
export const SEED = 20_261_125
