/**
 * Async iteration over the API's lists (docs/api.md, "Pagination"): offset pages (`limit`, `offset`,
 * `total`: records, the usage ledger) and cursor pages (`limit`, `cursor` → `nextCursor`: the memory and
 * file listings of a record). One request per page, made only when the loop reaches it; stopping the
 * loop early makes no further request.
 */

/** An async iterable of items that can also be read page by page. */
export interface PageIterator<T, P> extends AsyncIterable<T> {
  /** The pages themselves, as the server answers them. */
  pages(): AsyncIterable<P>;
  /** Every item, collected into an array (`max`: stop after that many). */
  toArray(max?: number): Promise<T[]>;
}

function pageIterator<T, P>(pages: () => AsyncGenerator<P>, itemsOf: (page: P) => T[]): PageIterator<T, P> {
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* itemsOf(page);
    },
    async toArray(max = Number.POSITIVE_INFINITY) {
      const items: T[] = [];
      if (max <= 0) return items;
      for await (const page of pages()) {
        for (const item of itemsOf(page)) {
          items.push(item);
          if (items.length >= max) return items;
        }
      }
      return items;
    },
  };
}

/**
 * Offset pagination: requests `(offset, limit)` from 0 until `total` items were seen or a page is empty.
 * Items added while iterating (lists are newest first) may shift a page: an item can then repeat.
 */
export function offsetPages<T, P extends { total: number }>(fetchPage: (offset: number) => Promise<P>, itemsOf: (page: P) => T[]): PageIterator<T, P> {
  return pageIterator(async function* () {
    let offset = 0;
    for (;;) {
      const page = await fetchPage(offset);
      yield page;
      const count = itemsOf(page).length;
      offset += count;
      if (count === 0 || offset >= page.total) return;
    }
  }, itemsOf);
}

/** Cursor pagination: follows `nextCursor` until the server answers none. */
export function cursorPages<T, P extends { nextCursor?: string | null }>(fetchPage: (cursor: string | undefined) => Promise<P>, itemsOf: (page: P) => T[]): PageIterator<T, P> {
  return pageIterator(async function* () {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield page;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }, itemsOf);
}
