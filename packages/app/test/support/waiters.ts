/**
 * Promises that resolve once a condition holds, checked again each time the owner reports that something happened (a
 * request arrived, output was printed): tests wait for the event, not a poll interval.
 */
export const makeWaiters = () => {
  let waiting: Array<{ readonly check: () => boolean; readonly resolve: () => void }> = []
  return {
    until: (check: () => boolean): Promise<void> => check() ? Promise.resolve() : new Promise((resolve) => waiting.push({ check, resolve })),
    happened: () => {
      waiting = waiting.filter((waiter) => {
        const done = waiter.check()
        if (done) waiter.resolve()
        return !done
      })
    }
  }
}
