// A view derived from its model: shared fields come from the model's own encoding, the rest is named.
import { assert, describe, it } from "@effect/vitest"
import { deriveView } from "@atrium/domain"
import { DateTime, Option, Schema } from "effect"

class Note extends Schema.Class<Note>("test/Note")({
  id: Schema.String,
  body: Schema.String,
  secretDigest: Schema.String,
  createdAt: Schema.DateTimeUtc,
  readAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  pinnedBy: Schema.OptionFromNullOr(Schema.String)
}) {}

const NoteView = Schema.Struct({
  id: Schema.String,
  body: Schema.String,
  writtenAt: Schema.String,
  readAt: Schema.NullOr(Schema.String),
  pinnedBy: Schema.NullOr(Schema.String),
  unread: Schema.Boolean
})

const at = DateTime.makeUnsafe("2026-01-31T12:00:00.000Z")
const note = new Note({ id: "n1", body: "hi", secretDigest: "d1g35t", createdAt: at, readAt: Option.none(), pinnedBy: Option.some("ada") })

describe("deriveView", () => {
  it("shows the model's fields in their JSON form, renamed where asked, computed ones from the caller, and nothing withheld", () => {
    const view = deriveView(Note, NoteView, { withheld: ["secretDigest"], renamed: { writtenAt: "createdAt" } })
    const shown = view(note, { unread: true })
    assert.deepStrictEqual(shown, {
      id: "n1",
      body: "hi",
      writtenAt: "2026-01-31T12:00:00.000Z",
      readAt: null,
      pinnedBy: "ada",
      unread: true
    })
    assert.notInclude(JSON.stringify(shown), "d1g35t")
  })

  it("can be mapped over a list when the view computes nothing (the index is not read as fields)", () => {
    const Plain = Schema.Struct({ id: Schema.String, body: Schema.String })
    const view = deriveView(Note, Plain, { withheld: ["secretDigest", "createdAt", "readAt", "pinnedBy"] })
    assert.deepStrictEqual([note, note].map(view), [{ id: "n1", body: "hi" }, { id: "n1", body: "hi" }])
  })

  it("takes nested records, lists and options in their JSON form too, as the model's codec would", () => {
    const Visit = Schema.Struct({ at: Schema.DateTimeUtc, by: Schema.OptionFromNullOr(Schema.String) })
    class Page extends Schema.Class<Page>("test/Page")({
      last: Schema.OptionFromNullOr(Visit),
      times: Schema.Array(Schema.DateTimeUtc)
    }) {}
    const PageView = Schema.Struct({
      last: Schema.NullOr(Schema.Struct({ at: Schema.String, by: Schema.NullOr(Schema.String) })),
      times: Schema.Array(Schema.String)
    })
    const page = new Page({ last: Option.some({ at, by: Option.none() }), times: [at] })
    const shown = deriveView(Page, PageView, { withheld: [] })(page)
    assert.deepStrictEqual(shown, { last: { at: "2026-01-31T12:00:00.000Z", by: null }, times: ["2026-01-31T12:00:00.000Z"] })
    assert.deepStrictEqual(shown, Schema.encodeSync(Schema.toCodecJson(Page))(page))
  })

  it("does not compile while a model field is neither shown, renamed nor withheld", () => {
    // @ts-expect-error `secretDigest` is unaccounted for: a field added to a model must be shown or withheld by name.
    const view = deriveView(Note, NoteView, { withheld: [], renamed: { writtenAt: "createdAt" } })
    assert.strictEqual(view(note, { unread: false }).unread, false)
  })
})
