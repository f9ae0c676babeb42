import fc from 'fast-check'
import t from 'tap'
import {
  COUNTRY_CODES, CURRENCY_CODES, LANGUAGE_TAG_MAX_LENGTH, TIME_ZONES,
  normalizeCountryCode, normalizeCurrencyCode, normalizeLanguageTag, normalizeTimeZone
} from '../../../../plugins/app/settings/locale-codes.ts'

const countries = [...COUNTRY_CODES]
const currencies = [...CURRENCY_CODES]
const zones = [...TIME_ZONES]

/** The same text with each letter's case flipped at random, and optional surrounding spaces. */
const respelled = (text: string) => fc.tuple(fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }), fc.constantFrom('', ' ', '\t'))
  .map(([flips, pad]) => pad + [...text].map((char, i) => flips[i] === true ? (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()) : char).join('') + pad)

/** Any text, including lookalikes: two or three letters, digits, punctuation, unicode. */
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.stringMatching(/^[A-Za-z]{2,3}$/),
  fc.stringMatching(/^[A-Za-z]{1,8}(?:[-_/][A-Za-z0-9]{1,8}){0,3}$/)
)

const runs = { numRuns: 500 }

/** normalize(x) is undefined or a member of `accepted`, and normalising it again changes nothing. */
function closedAndIdempotent (normalize: (text: string) => string | undefined, accepted: ReadonlySet<string> | ((value: string) => boolean)) {
  const isAccepted = typeof accepted === 'function' ? accepted : (value: string) => accepted.has(value)
  return fc.property(anyText, (text) => {
    const once = normalize(text)
    return once === undefined || (isAccepted(once) && normalize(once) === once)
  })
}

t.test('country: ISO 3166-1 alpha-2, any case in, upper case out', async (t) => {
  t.equal(countries.length, 249, 'every assigned code, nothing else')
  const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })
  t.same(countries.filter((code) => regionNames.of(code) === undefined), [], 'each code names a real region')
  fc.assert(fc.property(fc.constantFrom(...countries).chain((code) => fc.tuple(fc.constant(code), respelled(code))), ([code, spelling]) =>
    normalizeCountryCode(spelling) === code), runs)
  fc.assert(fc.property(anyText, (text) =>
    (normalizeCountryCode(text) !== undefined) === COUNTRY_CODES.has(text.trim().toUpperCase())), runs)
  fc.assert(closedAndIdempotent(normalizeCountryCode, COUNTRY_CODES), runs)
  for (const notACountry of ['XX', 'ZZ', 'EU', 'UN', 'XK', 'UK', 'QO', 'AC', '', 'D', 'DEU', '276']) {
    t.equal(normalizeCountryCode(notACountry), undefined, notACountry)
  }
})

t.test('currency: ISO 4217 as the runtime knows it, any case in, upper case out', async (t) => {
  t.ok(CURRENCY_CODES.has('EUR') && CURRENCY_CODES.has('USD') && CURRENCY_CODES.has('JPY'))
  fc.assert(fc.property(fc.constantFrom(...currencies).chain((code) => fc.tuple(fc.constant(code), respelled(code))), ([code, spelling]) =>
    normalizeCurrencyCode(spelling) === code), runs)
  fc.assert(fc.property(anyText, (text) =>
    (normalizeCurrencyCode(text) !== undefined) === CURRENCY_CODES.has(text.trim().toUpperCase())), runs)
  fc.assert(closedAndIdempotent(normalizeCurrencyCode, CURRENCY_CODES), runs)
  for (const notACurrency of ['ABC', 'EURO', 'EU', '€', '978', '']) t.equal(normalizeCurrencyCode(notACurrency), undefined, notACurrency)
})

t.test('time zone: every listed zone, in any case, is accepted as itself; the result is always a listed zone', async (t) => {
  t.ok(TIME_ZONES.has('UTC') && TIME_ZONES.has('Europe/Paris') && TIME_ZONES.has('America/New_York'))
  t.same(zones.filter((zone) => normalizeTimeZone(zone) !== zone), [], 'each listed zone is its own canonical form')
  fc.assert(fc.property(fc.constantFrom(...zones).chain((zone) => fc.tuple(fc.constant(zone), respelled(zone))), ([zone, spelling]) =>
    normalizeTimeZone(spelling) === zone), runs)
  fc.assert(closedAndIdempotent(normalizeTimeZone, TIME_ZONES), runs)
  fc.assert(fc.property(fc.stringMatching(/^[+-]\d{2}(?::?\d{2})?$/), (offset) => normalizeTimeZone(offset) === undefined), { numRuns: 100 })
  for (const [alias, canonical] of [['Etc/UTC', 'UTC'], ['GMT', 'UTC'], ['US/Eastern', 'America/New_York'], ['Asia/Kolkata', 'Asia/Calcutta']]) {
    t.equal(normalizeTimeZone(alias as string), canonical, `${alias} resolves to ${canonical}`)
  }
  for (const notAZone of ['Mars/Olympus', 'Europe', 'Paris', '', 'UTC+1', '../etc/passwd']) t.equal(normalizeTimeZone(notAZone), undefined, notAZone)
})

t.test('language: a real BCP 47 tag, canonicalised, at most 16 characters', async (t) => {
  const isCanonical = (tag: string) => tag.length <= LANGUAGE_TAG_MAX_LENGTH && Intl.getCanonicalLocales(tag)[0] === tag
  fc.assert(closedAndIdempotent(normalizeLanguageTag, isCanonical), runs)

  const languages = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv', 'ja', 'zh', 'ar', 'hi', 'tr', 'uk']
  fc.assert(fc.property(fc.constantFrom(...languages), fc.constantFrom(...countries), (language, region) => {
    const tag = `${language}-${region}`
    return [tag.toLowerCase(), tag.toUpperCase(), `${language}_${region}`].every((spelling) => normalizeLanguageTag(spelling) === tag)
  }), runs)
  fc.assert(fc.property(fc.string({ maxLength: 12 }).filter((s) => /[^A-Za-z0-9_\-\s]/.test(s)), (text) =>
    normalizeLanguageTag(text) === undefined), runs)

  for (const [input, tag] of [['EN', 'en'], ['en-gb', 'en-GB'], ['zh-hant-tw', 'zh-Hant-TW'], ['es-419', 'es-419'], ['art-lojban', 'jbo'], ['pt_BR', 'pt-BR']]) {
    t.equal(normalizeLanguageTag(input as string), tag, `${input} → ${tag}`)
  }
  for (const notALanguage of ['', 'xyz', 'und', 'en-XX', 'en-Abcd', 'es-999', 'english', 'i-klingon', 'en-US-u-ca-gregory']) {
    t.equal(normalizeLanguageTag(notALanguage), undefined, notALanguage)
  }
})
