import { WorkAnnouncements } from "@atrium/adapters-pg"
import { Domain, type WorkerOptions } from "@atrium/domain"
import { Effect, Layer } from "effect"

/** Which of the domain's work this process runs, and how it hears of new work besides polling. */
export interface WorkersOptions {
  /** Listen for work announcements (`LISTEN`); off on PGlite, a single session that a listener would hold for good. */
  readonly listen: boolean
  /** Only the work of these names (a benchmark's); all of it by default. */
  readonly only?: ReadonlyArray<string> | undefined
  /** Tuning over each work's own options (a benchmark's or a test's). */
  readonly tuning?: Partial<WorkerOptions> | undefined
}

const layerWith = (options: WorkersOptions) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const announcements = yield* WorkAnnouncements
    for (const work of yield* Domain.work) {
      if (options.only !== undefined && !options.only.includes(work.name)) continue
      const wakeUp = options.listen && work.announcedOn !== undefined ? yield* announcements.subscribe(work.announcedOn) : undefined
      yield* work.run(wakeUp, options.tuning)
    }
  })).pipe(Layer.provide(WorkAnnouncements.layer))

/** The domain's background work (`Domain.work`) in this process; every app process runs it and leased claims share it out. */
export const Workers = {
  layer: layerWith({ listen: true }),
  layerWith
}
