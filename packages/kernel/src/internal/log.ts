/**
 * An immutable list built for appending: a view of the first `length` items
 * of a backing array that is only ever pushed to. The newest view of a
 * backing appends in place, in O(1), because no view can see past its own
 * length; appending to an older view copies its items first. A session's
 * history and working context only grow between reductions, so every step
 * appends in place and no step copies the conversation.
 *
 * @internal
 */
export interface Log<A> {
  readonly backing: Array<A>
  readonly length: number
}

/** @internal */
export const empty = <A>(): Log<A> => ({ backing: [], length: 0 })

/** @internal */
export const fromArray = <A>(items: ReadonlyArray<A>): Log<A> => ({ backing: items.slice(), length: items.length })

/** @internal */
export const append = <A>(self: Log<A>, item: A): Log<A> => {
  const backing = self.backing.length === self.length ? self.backing : self.backing.slice(0, self.length)
  backing.push(item)
  return { backing, length: self.length + 1 }
}

/**
 * The items, as an array of their own: later appends never show in it.
 *
 * @internal
 */
export const toArray = <A>(self: Log<A>): ReadonlyArray<A> => self.backing.slice(0, self.length)

/** @internal */
export const last = <A>(self: Log<A>): A | undefined => (self.length === 0 ? undefined : self.backing[self.length - 1])
