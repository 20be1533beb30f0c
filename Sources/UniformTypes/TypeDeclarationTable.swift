import OrderedCollections
import PropertyList

// A type table: ICTKit's own declaration files as the SchemaEmbedder build
// tool writes them (Plugins/SchemaEmbedder), so that the built-in registry
// is made without parsing 371 KB of XML on every run. One field a line, the
// line's kind first, fields tab-separated:
//
//     I identifier        begins the next UTExportedTypeDeclarations entry
//     S text              its ICTKitSource
//     D text              its UTTypeDescription
//     C identifier        one UTTypeConformsTo entry
//     K tag-class         one UTTypeTagSpecification key (its tags follow)
//     T tag               one tag of the last K
//
// Values hold no tab, newline or other control character (the tool checks).
// Reading one gives the very declarations `TypeDeclarationSet(infoPlist:…)`
// gives for the XML, key paths included; a test compares the two.

extension TypeDeclarationSet {
    /// The declarations of a type table built into this module; `exportedOrigin`
    /// as for `init(infoPlist:file:exportedOrigin:)`. A malformed table is a
    /// build bug, so it stops the program.
    init(typeTable: String, exportedOrigin: TypeOrigin) {
        var table = typeTable
        exported = table.withUTF8 { TypeTableReader(bytes: $0).declarations(origin: exportedOrigin) }
    }
}

/// Reads a type table's lines into declarations.
struct TypeTableReader {
    let bytes: UnsafeBufferPointer<UInt8>

    private static let declarationsKey = PropertyListPathComponent.key("UTExportedTypeDeclarations")
    private static let conformsToKey = PropertyListPathComponent.key("UTTypeConformsTo")
    private static let tagsKey = PropertyListPathComponent.key("UTTypeTagSpecification")

    /// The declarations. Each is built in local variables and made when the
    /// next begins: mutating one inside an array or an optional copies it.
    func declarations(origin: TypeOrigin) -> [TypeDeclaration] {
        var result: [TypeDeclaration] = []
        var identifier: String?
        var reference: String?
        var description: String?
        var conformsTo: [String] = []
        var tags: OrderedDictionary<TypeTagClass, [String]> = [:]
        var tagClass: TypeTagClass?
        var classTags: [String] = []
        func finishTagClass() {
            if let tagClass { tags[tagClass] = classTags }
            classTags = []
        }
        func finishDeclaration() {
            guard let identifier else { return }
            finishTagClass()
            let index = result.count
            var declaration = TypeDeclaration(
                identifier: identifier, conformsTo: conformsTo, tags: tags, typeDescription: description,
                origin: origin,
                source: DeclarationSource(
                    file: nil, keyPath: [Self.declarationsKey, .index(index)],
                    reference: reference))
            declaration.conformsToPaths = conformsTo.indices.map { [Self.declarationsKey, .index(index), Self.conformsToKey, .index($0)] }
            for (tagClass, classTags) in tags {
                declaration.tagPaths[tagClass] = classTags.indices.map {
                    [Self.declarationsKey, .index(index), Self.tagsKey, .key(tagClass.rawValue), .index($0)]
                }
            }
            result.append(declaration)
            (reference, description, conformsTo, tags, tagClass) = (nil, nil, [], [:], nil)
        }
        forEachLine { kind, fieldBytes in
            let field = String(decoding: fieldBytes, as: UTF8.self)
            switch kind {
            case UInt8(ascii: "I"):
                finishDeclaration()
                identifier = field
            case UInt8(ascii: "S"): reference = field
            case UInt8(ascii: "D"): description = field
            case UInt8(ascii: "C"): conformsTo.append(field)
            case UInt8(ascii: "K"):
                finishTagClass()
                tagClass = TypeTagClass(rawValue: field)
            case UInt8(ascii: "T"):
                precondition(tagClass != nil, "a type table's T line follows no K line")
                classTags.append(field)
            default: preconditionFailure("a type table line has the unknown kind \(kind)")
            }
        }
        finishDeclaration()
        return result
    }

    /// Calls `body` with each line's kind and field, checking that the
    /// table starts with an `I` line and that every line has a kind and a tab.
    func forEachLine(_ body: (UInt8, UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if end > start {
                precondition(end - start >= 2 && bytes[start + 1] == UInt8(ascii: "\t"), "a type table line is malformed")
                let kind = bytes[start]
                precondition(start != 0 || kind == UInt8(ascii: "I"), "a type table starts with a line other than I")
                body(kind, UnsafeBufferPointer(rebasing: bytes[(start + 2)..<end]))
            }
            start = end + 1
        }
    }
}
