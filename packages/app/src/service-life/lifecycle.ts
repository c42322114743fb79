import { Context, Layer } from "effect"

/** Where the process is in its life: readiness and the HTTP server read it; the signal handler moves it on. */
export interface LifeState {
  /** A stop was asked for: readiness answers 503 from now on, so a balancer stops sending here. */
  readonly draining: () => boolean
  /** Marks the process draining (once; later calls do nothing). */
  readonly beginDrain: () => void
  /** Settles when draining begins. */
  readonly drainBegun: Promise<void>
  /** Runs `hook` when the process stops accepting (after the drain delay, before the server closes). */
  readonly onStopAccepting: (hook: () => void) => void
  /** The drain delay is over: the hooks run, then the layers shut down. */
  readonly stopAccepting: () => void
}

/** The process's life state, shared by the signal handler (outside Effect) and the routes and layers (inside). */
export class Lifecycle extends Context.Service<Lifecycle, LifeState>()("@atrium/app/Lifecycle") {
  /** A fresh state, not draining. */
  static readonly make = (): LifeState => {
    let draining = false
    let begun = () => {}
    const drainBegun = new Promise<void>((resolve) => begun = resolve)
    const hooks: Array<() => void> = []
    return {
      draining: () => draining,
      beginDrain: () => {
        draining = true
        begun()
      },
      drainBegun,
      onStopAccepting: (hook) => void hooks.push(hook),
      stopAccepting: () => {
        for (const hook of hooks.splice(0)) hook()
      }
    }
  }

  /** A layer holding `state`, so the signal handler and the layers see the same one. */
  static readonly layerWith = (state: LifeState) => Layer.succeed(Lifecycle, state)
}
