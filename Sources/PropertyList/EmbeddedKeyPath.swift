/// A key path that may step into a property list held in a data value
/// ("bplist inception": a Terminal profile's `Font`, a preference's
/// embedded binary plist, an archive's `NS.data`).
///
/// The grammar is `plutil`'s (`a.b.2`, `\.` a dot inside a key) with one
/// step more, spelled as the Go tool `ply` spells it: a `!` ending a key
/// (before the next `.` or at the end) reads the data value that key
/// reaches as a property list, and the key path goes on inside it.
/// `Font!` is the property list in `Font`'s data, `Font!.$top.root` its
/// archive's root object (`$top` follows references as in any keyed
/// archive), `a!.b!.c` two levels down. `\!` is a `!` in a key, so a key
/// that ends in `!` is written `Hello\!`; a `!` anywhere else in a key
/// (`a!b`) is a plain character.
///
/// The path is held as segments: the first applies to the outer property
/// list, each further one to the property list read from the data value
/// that the one before it reaches.
public struct EmbeddedKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// The segments, outermost first; never empty.
    public var segments: [PropertyListKeyPath]

    /// Makes a path from its segments; `segments` must not be empty.
    public init(_ segments: [PropertyListKeyPath]) {
        precondition(!segments.isEmpty, "an embedded key path has at least one segment")
        self.segments = segments
    }

    /// Parses the key-path grammar above. Text without a step parses as
    /// `PropertyListKeyPath(plutilSyntax:)` does, except that `\!` is a `!`.
    public init(parsing text: String) {
        var segments: [PropertyListKeyPath] = []
        var components: [PropertyListPathComponent] = []
        var key = ""
        var escaped = false
        var stepPending = false
        for character in text {
            if escaped {
                if character != "." && character != "!" { key.append("\\") }
                key.append(character)
                escaped = false
                continue
            }
            if stepPending {
                stepPending = false
                if character == "." {
                    components.append(.key(key))
                    segments.append(PropertyListKeyPath(components))
                    components = []
                    key = ""
                    continue
                }
                key.append("!")
            }
            switch character {
            case "\\": escaped = true
            case "!": stepPending = true
            case ".":
                components.append(.key(key))
                key = ""
            default: key.append(character)
            }
        }
        if escaped { key.append("\\") }
        components.append(.key(key))
        segments.append(PropertyListKeyPath(components))
        if stepPending { segments.append(PropertyListKeyPath()) }
        self.init(segments)
    }

    /// Whether the path steps into at least one data value.
    public var hasSteps: Bool { segments.count > 1 }

    /// The path of the data value the `index`-th step reads (`index` from
    /// 0, below the number of steps), written in this grammar: `Font!.$objects.1.NS.data`.
    public func prefix(throughSegment index: Int) -> EmbeddedKeyPath {
        EmbeddedKeyPath(Array(segments.prefix(index + 1)))
    }

    /// This path with one more segment: a step into the data value it reaches.
    public func appending(segment: PropertyListKeyPath) -> EmbeddedKeyPath {
        EmbeddedKeyPath(segments + [segment])
    }

    /// The path in the grammar above: segments joined by `!.` (a last,
    /// empty segment as a trailing `!`), dots in keys as `\.`, and a `!`
    /// ending a key as `\!`.
    public var description: String {
        var text = ""
        for (index, segment) in segments.enumerated() {
            if index > 0 { text += segment.components.isEmpty ? "!" : "!." }
            text += segment.components.map { component in
                switch component {
                case .key(let key):
                    let dotted = key.replacing(".", with: "\\.")
                    return dotted.hasSuffix("!") ? String(dotted.dropLast()) + "\\!" : dotted
                case .index(let index): return String(index)
                }
            }.joined(separator: ".")
        }
        return text
    }
}
