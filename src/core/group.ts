/**
 * `items` grouped by `key`, each group's values in the items' order (what `Map.groupBy` does from Node 21; the
 * engines include Node 20, which lacks it). `value` maps an item to what its group keeps (the item itself by default).
 */
export function groupBy<T, K, V = T>(
  items: Iterable<T>,
  key: (item: T) => K,
  value: (item: T) => V = (item) => item as unknown as V,
): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(value(item));
    else groups.set(k, [value(item)]);
  }
  return groups;
}
