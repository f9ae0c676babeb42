/**
 * Trims an object's top-level strings, so that length limits apply to the text
 * that will be stored ("   " is too short, not a one-character message).
 * REST routes run it before schema validation and MCP tools before theirs;
 * the services check the trimmed lengths again for any other caller.
 */
export function trimTopLevelStrings<T> (input: T): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, typeof value === 'string' ? value.trim() : value])) as T
}
