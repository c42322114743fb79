import { HttpApi, type HttpApiGroup } from "effect/http-api"

/** A method and a router path (`/api/v1/things/:id`) the server answers. */
export interface KnownRoute {
  readonly method: string
  readonly path: string
}

/** Which methods a path supports, to tell a wrong method (405) from an unknown path (404). */
export interface RouteTable {
  readonly allowed: (path: string) => ReadonlyArray<string>
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const toPattern = (path: string) =>
  new RegExp(`^${path.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escape(segment)).join("/")}/?$`)

/** The routes of an `HttpApi`. */
export const routesOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>): ReadonlyArray<KnownRoute> => {
  const routes: Array<KnownRoute> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, path: endpoint.path })
  })
  return routes
}

/** A table of the given routes; a `GET` route also answers `HEAD`. */
export const makeRouteTable = (routes: ReadonlyArray<KnownRoute>): RouteTable => {
  const byPath = new Map<string, { readonly pattern: RegExp; readonly methods: Set<string> }>()
  for (const route of routes) {
    const entry = byPath.get(route.path) ?? { pattern: toPattern(route.path), methods: new Set<string>() }
    entry.methods.add(route.method)
    if (route.method === "GET") entry.methods.add("HEAD")
    byPath.set(route.path, entry)
  }
  const entries = Array.from(byPath.values())
  return {
    allowed: (path) => {
      const methods = new Set<string>()
      for (const entry of entries) {
        if (entry.pattern.test(path)) for (const method of entry.methods) methods.add(method)
      }
      return Array.from(methods).sort()
    }
  }
}
