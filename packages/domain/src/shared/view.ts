import { DateTime, Option, Schema } from "effect"

/** A schema with a record of fields: a `Schema.Struct` or a `Schema.Class`. */
type Fielded = Schema.Codec<object, unknown, never, never> & { readonly fields: Schema.Struct.Fields }

type ModelKey<M extends Fielded> = keyof M["fields"] & string
type ViewKey<V extends Fielded> = keyof V["fields"] & string

/** How a view reads its model: which model fields it withholds, and which it shows under another name. */
export interface ViewOptions<M extends Fielded, V extends Fielded> {
  /** Model fields the view does not carry (secrets, digests, internal state), named so that leaving one out is a choice. */
  readonly withheld: ReadonlyArray<Exclude<ModelKey<M>, ViewKey<V>>>
  /** View fields that show a model field under another name (`{ joinedAt: "createdAt" }`). */
  readonly renamed?: { readonly [K in Exclude<ViewKey<V>, ModelKey<M>>]?: ModelKey<M> }
}

// Model fields neither shown, renamed nor withheld: a field added to the model lands here until the view decides.
type Unaccounted<M extends Fielded, V extends Fielded, O extends ViewOptions<M, V>> = Exclude<
  ModelKey<M>,
  ViewKey<V> | O["withheld"][number] | (O["renamed"] extends object ? O["renamed"][keyof O["renamed"]] : never)
>

// View fields the model does not hold under any name: the caller supplies them.
type Extra<M extends Fielded, V extends Fielded, O extends ViewOptions<M, V>> = Omit<
  V["Encoded"],
  ModelKey<M> | (O["renamed"] extends object ? keyof O["renamed"] : never)
>

/**
 * A model through a view, derived from the model's own schema: each field the view shows is taken in its JSON form
 * (ISO-8601 instants, `null` for none) and decoded by the view's codec (a contract's wire view, or a domain
 * projection), so a shared field is never mapped by hand. Every model field is shown, renamed or withheld by name: one added to the model does
 * not compile until its view says which. Fields the view computes (a status at `now`, a flag) are the only ones the
 * caller writes, in their JSON form.
 */
export const deriveView = <M extends Fielded, V extends Fielded, const O extends ViewOptions<M, V>>(
  model: M,
  view: V,
  options: O & ([Unaccounted<M, V, O>] extends [never] ? unknown : { readonly unaccounted: Unaccounted<M, V, O> })
): (value: M["Type"], ...extra: keyof Extra<M, V, O> extends never ? [] : [extra: Extra<M, V, O>]) => V["Type"] => {
  const renamed: Record<string, string | undefined> = { ...options.renamed }
  const names: Array<readonly [view: string, model: string]> = []
  const computed: Array<string> = []
  for (const name of Object.keys(view.fields)) {
    const source = renamed[name] ?? name
    if (source in model.fields) names.push([name, source])
    else computed.push(name)
  }
  const decode = Schema.decodeUnknownSync(Schema.toCodecJson(view))
  return (value, ...extra) => {
    // Only the computed fields are read from `extra` (`map(view)` passes an index there when there are none).
    const wire: Record<string, unknown> = {}
    const given: unknown = extra[0]
    if (typeof given === "object" && given !== null) for (const name of computed) wire[name] = Reflect.get(given, name)
    for (const [name, source] of names) wire[name] = jsonOf(Reflect.get(value, source))
    return decode(wire)
  }
}

/**
 * A shown field's value in the JSON form the models' codecs give it (an instant as ISO-8601, none as `null`, nested
 * records and lists alike); the view's decoding then checks every field. Written out because the schema codec costs
 * 3–7 µs per instant, six times a hand mapper for a purchase; only shown fields are read, so a secret is never touched.
 */
const jsonOf = (value: unknown): unknown => {
  if (DateTime.isDateTime(value)) return DateTime.formatIso(value)
  if (Option.isOption(value)) return Option.isSome(value) ? jsonOf(value.value) : null
  if (Array.isArray(value)) return value.map(jsonOf)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(value)) out[name] = jsonOf(member)
  return out
}
