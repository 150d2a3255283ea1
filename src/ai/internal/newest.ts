/**
 * A `Map` kept to its newest entries: a key set again moves to the end (a `Map` keeps
 * insertion order), and past `max` entries the one set longest ago is dropped.
 *
 * @internal
 */

/** Sets `key` to `value` as the newest entry of `map`, dropping the oldest past `max`. */
export const setNewest = <K, V>(map: Map<K, V>, key: K, value: V, max: number): void => {
  map.delete(key)
  map.set(key, value)
  if (map.size > max) {
    const oldest = map.keys().next()
    if (oldest.done !== true) map.delete(oldest.value)
  }
}
