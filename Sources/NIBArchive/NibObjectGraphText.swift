/// The graph shown for people, as a tree from the root.
extension NibObjectGraph {
    /// The graph as text: a summary line, the top-level objects, the
    /// connections (`outlet "view": #3 UIViewController -> #7 UIView`), then
    /// each object from the root down (its fields two spaces in, an object
    /// a field refers to four). An object is
    /// expanded where it is first reached; a later reference says
    /// `(shown above)`, one to an object being expanded says `(cycle)`. A
    /// `UIColor` or `UIFont` that decodes (`readableValue(ofObjectAt:limits:)`)
    /// is one line, its label and readable text, as a keyed archive's tree
    /// shows one: `#39 UIFont = ".SFUIText" 14 pt, usage CTFontRegularUsage`;
    /// the objects it was read from count as shown.
    /// Objects the root does not reach follow, under `unreached objects:`.
    /// Control characters in strings are shown escaped.
    ///
    /// - Throws: `NIBArchiveError` `.limitExceeded(.depth)` at the byte
    ///   offset of the value that nests deeper than `limits.maximumDepth`.
    public func treeText(limits: NIBArchiveLimits = .default) throws(NIBArchiveError) -> String {
        var printer = NibTreePrinter(graph: self, limits: limits)
        let count = objects.count(where: { $0 != nil })
        printer.output += "\(count) objects, \(topLevelObjects.count) top-level, \(connections.count) connections\n"
        printer.output += "top-level objects:\n"
        for index in topLevelObjects { printer.output += "  \(label(of: index))\n" }
        printer.output += "connections:\n"
        for connection in connections { printer.output += "  \(text(of: connection))\n" }
        printer.output += "objects:\n"
        try printer.expand(rootIndex, depth: 0, offset: nil)
        var unreached = true
        for case let object? in objects where !printer.shown.contains(object.index) {
            if unreached {
                printer.output += "unreached objects:\n"
                unreached = false
            }
            try printer.expand(object.index, depth: 0, offset: nil)
        }
        return printer.output
    }

    /// `#7 UIView`, with the text of a string object: `#4 NSString "title"`; `#9 (no object)` for an index with none.
    public func label(of index: Int) -> String {
        guard let object = object(index) else { return "#\(index) (no object)" }
        if let string = object.string { return "#\(index) \(object.className) \(Self.quoted(string))" }
        return "#\(index) \(object.className)"
    }

    /// One line for a connection: `outlet "view": #3 UIViewController -> #7 UIView`.
    public func text(of connection: Connection) -> String {
        let label = connection.label.map(Self.quoted) ?? "(no label)"
        let source = connection.source.map { self.label(of: $0) } ?? "(none)"
        let destination = connection.destination.map { self.label(of: $0) } ?? "(first responder)"
        return "\(connection.kind.rawValue) \(label): \(source) -> \(destination)"
    }

    /// One line for a value: an object's label, a number, `true`, `nil`, a quoted string, `<5 bytes: 68 65 …>`;
    /// data of 17 or 33 bytes starting with 7, as UIKit writes a point, size or rect, as its doubles: `{0.0, 0.0, 320.0, 180.0}`.
    public func text(of value: Value) -> String {
        switch value {
        case .object(let index): label(of: index)
        case .integer(let integer): "\(integer)"
        case .real(let real): "\(real)"
        case .bool(let flag): "\(flag)"
        case .data(let bytes): Self.dataText(bytes)
        case .string(let text): Self.quoted(text)
        case .nil: "nil"
        case .list(let list): "[" + list.map { text(of: $0) }.joined(separator: ", ") + "]"
        }
    }

    static func dataText(_ bytes: [UInt8]) -> String {
        if bytes.first == 7, bytes.count == 17 || bytes.count == 33 {
            var doubles: [String] = []
            for start in stride(from: 1, to: bytes.count, by: 8) {
                var bits: UInt64 = 0
                for byte in 0..<8 { bits |= UInt64(bytes[start + byte]) << UInt64(8 * byte) }
                doubles.append("\(Double(bitPattern: bits))")
            }
            return "{" + doubles.joined(separator: ", ") + "}"
        }
        let hexDigits = Array("0123456789abcdef")
        let shown = bytes.prefix(16).map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]]) }
        let more = bytes.count > 16 ? " …" : ""
        return "<\(bytes.count) bytes\(shown.isEmpty ? "" : ": ")\(shown.joined(separator: " "))\(more)>"
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String { "\"" + escaped(text, quotes: true) + "\"" }

    /// `text` with control characters (and, with `quotes`, quotes and backslashes) escaped.
    static func escaped(_ text: String, quotes: Bool = false) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where quotes: result += "\\\""
            case "\\" where quotes: result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u{" + hex + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

/// The walk behind `treeText(limits:)`.
private struct NibTreePrinter {
    let graph: NibObjectGraph
    let limits: NIBArchiveLimits
    var output = ""
    var shown: Set<Int> = []
    var expanding: Set<Int> = []

    init(graph: NibObjectGraph, limits: NIBArchiveLimits) {
        self.graph = graph
        self.limits = limits
    }

    /// Prints object `index` and its fields at `depth`, the first time it is reached.
    mutating func expand(_ index: Int, depth: Int, offset: Int?) throws(NIBArchiveError) {
        guard depth <= limits.maximumDepth else {
            throw NIBArchiveError(
                .limitExceeded(.depth), at: offset,
                "object \(index) is nested \(depth) references deep, more than the limit of \(limits.maximumDepth)")
        }
        let indent = String(repeating: "    ", count: depth)
        shown.insert(index)
        expanding.insert(index)
        defer { expanding.remove(index) }
        if let (value, parts) = graph.readableValueAndParts(ofObjectAt: index, limits: limits) {
            // As a keyed archive's tree shows a colour or font: `#39 UIFont = ".SFUIText" 14 pt`, without its fields.
            output += indent + graph.label(of: index) + " = " + NibObjectGraph.escaped(value.readableText) + "\n"
            shown.formUnion(parts)
            return
        }
        output += indent + graph.label(of: index) + "\n"
        guard let object = graph.object(index) else { return }
        // An array's elements all have the key UINibEncoderEmptyKey: numbered, they read as a list.
        var element = 0
        for field in object.fields {
            var key = field.key
            if key == "UINibEncoderEmptyKey" {
                key = "[\(element)]"
                element += 1
            }
            if case .object(let target) = field.value, graph.object(target) != nil {
                if expanding.contains(target) {
                    output += "\(indent)  \(key): \(graph.label(of: target)) (cycle)\n"
                } else if shown.contains(target) {
                    output += "\(indent)  \(key): \(graph.label(of: target)) (shown above)\n"
                } else if graph.object(target)?.string != nil && graph.object(target)?.fields.count == 1 {
                    shown.insert(target)
                    output += "\(indent)  \(key): \(graph.label(of: target))\n"
                } else {
                    output += "\(indent)  \(key):\n"
                    try expand(target, depth: depth + 1, offset: field.byteOffset)
                }
            } else {
                output += "\(indent)  \(key): \(graph.text(of: field.value))\n"
            }
        }
    }
}
