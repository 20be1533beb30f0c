import PropertyList

// `SchemaEmbedder table INPUT OUTPUT CONSTANT NAME` reads INPUT, an
// Info.plist of ICTKit's own type declarations (shown to people as NAME),
// and writes OUTPUT, a Swift file declaring the internal
// `TypeDeclarationSet.CONSTANT`: the same declarations as a type table, the
// line format `TypeDeclarationSet(typeTable:exportedOrigin:)` reads in
// Sources/UniformTypes/TypeDeclarationTable.swift (one field a line, no
// XML to parse at run time).
//
// The table holds what ICTKit's schema files use: `UTExportedTypeDeclarations`
// entries with string values and arrays of strings. Anything else fails
// the build, so the table never silently drops what the XML says; a test
// compares the declarations read both ways.

/// The Swift source declaring `TypeDeclarationSet.constant`, the type table of the Info.plist at `input`.
func typeTableSource(input: String, constant: String, name: String) -> String {
    """
    extension TypeDeclarationSet {
        /// The declarations of `\(name)` as a type table, written at build
        /// time by the EmbedSchemas plugin.
        static let \(constant): String = #\"\"\"
    \(typeTable(input: input, name: name))\"\"\"#
    }

    """
}

/// One table line: a kind letter, then fields, tab-separated.
func line(_ kind: String, _ fields: String..., at path: String, name: String) -> String {
    for field in fields where field.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) || field.contains("\"\"\"#") {
        fail("\(name): \(path) holds a control character or \"\"\"#, which the type table cannot hold")
    }
    return ([kind] + fields).joined(separator: "\t") + "\n"
}
/// The strings of an array; the build fails on anything else.
func strings(_ value: PropertyListValue, at path: String, name: String) -> [String] {
    guard let items = value.arrayValue else { fail("\(name): \(path) is not an array") }
    return items.enumerated().map { index, item in
        guard let text = item.stringValue else { fail("\(name): \(path)[\(index)] is not a string") }
        return text
    }
}

/// The type table of the Info.plist at `input`. A function, so that the
/// property list is freed before the program ends (a leak checker, as in the
/// sanitized fuzz build, would report values left in globals).
func typeTable(input: String, name: String) -> String {
    let root: PropertyListValue
    do {
        let file = try MappedFile(path: input)
        root = try withExtendedLifetime(file) { () throws(PropertyListError) in try PropertyListReader().read(file.bytes).value }
    } catch {
        fail("\(input): \(error)")
    }
    guard let dictionary = root.dictionaryValue else { fail("\(name): the root is not a dictionary") }
    var table = ""
    for (key, value) in dictionary {
        guard key == "UTExportedTypeDeclarations", let entries = value.arrayValue else {
            fail("\(name): \(key) is not UTExportedTypeDeclarations, an array; the type table holds nothing else")
        }
        for (index, entry) in entries.enumerated() { table += lines(of: entry, at: "UTExportedTypeDeclarations[\(index)]", name: name) }
    }
    return table
}

/// The table lines of one declaration.
func lines(of entry: PropertyListValue, at path: String, name: String) -> String {
    guard let fields = entry.dictionaryValue, let identifier = fields["UTTypeIdentifier"]?.stringValue else {
        fail("\(name): \(path) is not a dictionary with a UTTypeIdentifier string")
    }
    var table = line("I", identifier, at: path, name: name)
    for (field, value) in fields where field != "UTTypeIdentifier" {
        let fieldPath = "\(path).\(field)"
        switch field {
        case "UTTypeConformsTo":
            for parent in strings(value, at: fieldPath, name: name) { table += line("C", parent, at: fieldPath, name: name) }
        case "UTTypeTagSpecification":
            guard let specification = value.dictionaryValue else { fail("\(name): \(fieldPath) is not a dictionary") }
            for (tagClass, tags) in specification {
                table += line("K", tagClass, at: fieldPath, name: name)
                for tag in strings(tags, at: "\(fieldPath).\(tagClass)", name: name) { table += line("T", tag, at: fieldPath, name: name) }
            }
        default:
            let kinds = ["ICTKitSource": "S", "UTTypeDescription": "D"]
            guard let kind = kinds[field], let text = value.stringValue else {
                fail("\(name): \(fieldPath) is not a string the type table holds")
            }
            table += line(kind, text, at: fieldPath, name: name)
        }
    }
    return table
}
