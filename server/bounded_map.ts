/**
 * The one eviction rule of the service's in-memory maps (token validations and client salts,
 * failure counts, HMAC keys, opened secrets, launch apps): a Map iterates in insertion order, so
 * an entry set last goes last, and past the bound the first one goes.
 */

/**
 * Sets `key` to `value` as `map`'s most recent entry (deleted first, so an update moves it too);
 * then drops the least recent entries until at most `max` remain.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}
