import PropertyList
import TypedStream

/// Typed streams (`NSArchiver`: old nibs' `objects.nib`, iMessage's
/// `attributedBody`) for `inspect`, `convert`, `validate` and `get`: found
/// by their header, read and decoded by the TypedStream library; this only
/// prints.
package enum TypedStreamSupport {
    /// The typed stream in `file`, or nil when the file does not start as one.
    package static func read(_ file: InputFile) -> Result<TypedStreamDocument, TypedStreamError>? {
        try? file.withBytes { bytes throws(PropertyListError) in
            guard TypedStreamReader.isTypedStream(bytes) else { return nil }
            return Result { () throws(TypedStreamError) in try TypedStreamReader().read(bytes) }
        }
    }

    /// The problem for a typed stream error, at its byte offset.
    package static func problem(_ path: String, _ error: TypedStreamError) -> Problem {
        Problem(path: path, location: .byte(error.byteOffset), error.message)
    }

    /// `get`: the value at `keyPath` of the typed stream in `file` (named
    /// `path`) decoded (`TypedStreamDocument.value(atKeyPath:)`), or nil
    /// when it is not a typed stream.
    package static func value(in file: InputFile, path: String, keyPath: String) -> Result<PropertyListValue, Problem>? {
        guard let read = read(file) else { return nil }
        do throws(TypedStreamError) {
            let document = try read.get()
            let value = try document.value(atKeyPath: keyPath)
            var decoder = TypedStreamFoundationDecoder(document: document)
            return .success(try decoder.decode(value, at: 0).jsonForm)
        } catch {
            return .failure(Problem(path: path, location: .byte(error.byteOffset), error.message, keyPath: keyPath))
        }
    }

    /// "typed stream (little-endian)".
    package static func formatName(_ document: TypedStreamDocument) -> String {
        "typed stream (\(document.byteOrder == .littleEndian ? "little" : "big")-endian)"
    }

    /// The root decoded, or the problem that stops it.
    package static func decodedRoot(_ document: TypedStreamDocument, path: String) -> Result<FoundationObject, Problem> {
        var decoder = TypedStreamFoundationDecoder(document: document)
        do throws(TypedStreamError) {
            return .success(try decoder.decodeRoot())
        } catch {
            return .failure(problem(path, error))
        }
    }

    /// `convert --format json`: the lossless form, and the root decoded by class name when it decodes.
    package static func jsonForm(_ document: TypedStreamDocument) -> PropertyListValue {
        var form: [(String, PropertyListValue)] = [("typedStream", document.jsonForm)]
        if case .success(let decoded) = decodedRoot(document, path: "") { form.append(("decoded", decoded.jsonForm)) }
        return .dictionary(.init(uniqueKeysWithValues: form))
    }

    // MARK: The tree for people

    /// `ict inspect`'s tree: each object as its class and version; strings,
    /// numbers, URLs and the like as their values; an attributed string as
    /// its text and runs; other objects as their fields with type encodings.
    /// An object met again is named, not shown again.
    package static func treeLines(_ document: TypedStreamDocument) -> [String] {
        var printer = TreeLines(document: document)
        printer.lines.append("\(formatName(document)), streamer version \(document.streamerVersion), system version \(document.systemVersion)")
        for group in document.root {
            for field in group.values { printer.value(field.value, encoding: field.encoding, label: "", indent: 1) }
        }
        return printer.lines
    }

    private struct TreeLines {
        package let document: TypedStreamDocument
        package var decoder: TypedStreamFoundationDecoder
        package var shown: Set<Int> = []
        package var lines: [String] = []

        package init(document: TypedStreamDocument) {
            self.document = document
            self.decoder = TypedStreamFoundationDecoder(document: document)
        }

        private mutating func line(_ text: String, _ indent: Int) {
            lines.append(String(repeating: "  ", count: indent) + text)
        }

        package mutating func value(_ value: TypedStreamValue, encoding: String, label: String, indent: Int) {
            switch value {
            case .object(let index?): object(index, label: label, indent: indent)
            case .array(let elements):
                line("\(label)\(encoding) (\(elements.count) elements)", indent)
                for (index, element) in elements.enumerated() { self.value(element, encoding: "", label: "[\(index)] ", indent: indent + 1) }
            case .structure(let name, let fields):
                line("\(label)struct \(name ?? "?") (\(fields.count) fields)", indent)
                for (index, field) in fields.enumerated() { self.value(field, encoding: "", label: "\(index): ", indent: indent + 1) }
            default:
                line("\(label)\(encoding.isEmpty ? "" : encoding + " ")\(Self.scalar(value, document))", indent)
            }
        }

        private mutating func object(_ index: Int, label: String, indent: Int) {
            let object = document.objects[index]
            let chain = document.classChain(of: object)
            let name = "\(chain.first?.name ?? "?") v\(chain.first?.version ?? 0)"
            guard shown.insert(index).inserted else {
                line("\(label)\(name) #\(index) (shown above)", indent)
                return
            }
            switch try? decoder.decodeObject(at: index) {
            case .attributedString(let text)?:
                line("\(label)\(name) #\(index): \(Self.quoted(text.string))", indent)
                for run in text.runs {
                    line("\(run.range) \(Self.quoted(run.text(in: text.string) ?? ""))", indent + 1)
                    for attribute in run.attributes { line("\(Self.summary(attribute.key)) = \(Self.summary(attribute.value))", indent + 2) }
                }
            case let decoded? where Self.isLeaf(decoded):
                line("\(label)\(name) #\(index): \(Self.summary(decoded))", indent)
            default:
                let superclasses = chain.dropFirst().map { "\($0.name) v\($0.version)" }
                line("\(label)\(name) #\(index)" + (superclasses.isEmpty ? "" : " : " + superclasses.joined(separator: " : ")), indent)
                for (number, field) in document.fields(of: object).enumerated() {
                    value(field.value, encoding: field.encoding, label: "\(number): ", indent: indent + 1)
                }
            }
        }

        private static func isLeaf(_ value: FoundationObject) -> Bool {
            switch value {
            case .string, .number, .data, .date, .url, .font, .color, .geometry: true
            default: false
            }
        }

        package static func quoted(_ text: String) -> String { FoundationText.quoted(text) }

        package static func summary(_ value: FoundationObject) -> String { value.readableText }

        package static func scalar(_ value: TypedStreamValue, _ document: TypedStreamDocument) -> String {
            switch value {
            case .integer(let integer): String(integer)
            case .float(let float): FoundationText.number(Double(float))
            case .double(let double): FoundationText.number(double)
            case .bool(let bool): bool ? "true" : "false"
            case .string(let bytes?): quoted(String(decoding: bytes, as: UTF8.self))
            case .string(nil), .object(nil), .class(nil): "nil"
            case .class(let index?): "class \(document.classes[index].name) v\(document.classes[index].version)"
            case .bytes(let bytes): "<\(bytes.count) bytes>"
            case .none: "(no value)"
            case .object, .array, .structure: ""
            }
        }
    }
}
