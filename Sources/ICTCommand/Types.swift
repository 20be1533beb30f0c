import ArgumentParser
import ICTKitTooling
import PropertyList
import UniformTypes

extension Ict {
    /// `ict types`: the uniform type registry.
    struct Types: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "types",
            abstract: "Look up uniform types by tag, show them, test conformance, identify files.",
            discussion: """
                The registry holds ICTKit's system types (Schemas/system-types.plist), \
                its stand-ins for types well-known apps export such as Xcode projects \
                (Schemas/well-known-app-types.plist, origin well-known), the .ict type \
                (Schemas/ict-types.plist), the Info.plists given with \
                --declarations, and the desktop's freedesktop shared-mime-info database \
                (/usr/share/mime/packages) unless --no-shared-mime-info is given.
                """,
            subcommands: [Lookup.self, Show.self, Conforms.self, Identify.self]
        )
    }
}

/// The declarations a `types` subcommand builds its registry from.
struct TypeSources: ParsableArguments {
    @Option(
        name: .customLong("declarations"), parsing: .upToNextOption,
        help: ArgumentHelp("Info.plist files (any property-list form) whose type declarations to add.", valueName: "file"))
    var declarationFiles: [String] = []

    @Flag(help: "Do not read the shared-mime-info database in /usr/share/mime/packages.")
    var noSharedMimeInfo = false

    @Flag(help: "Print one JSON document for programs (Schemas/cli/types-*.schema.json).")
    var json = false

    /// System, well-known-app and .ict types, then the given Info.plists, then shared-mime-info
    /// (so the desktop's types merge into declared ones by MIME type).
    /// Fails the command (exit status 1) when a file cannot be read.
    ///
    /// With `describing` false — the command prints no type's description,
    /// source or tags, only answers that follow from conformance — the
    /// shared-mime-info types come from the database's binary cache
    /// (`/usr/share/mime/mime.cache`, about 150 KB against 2.4 MB of XML) when
    /// it is at least as new as every package file; it holds the same parents
    /// and aliases, but no comments, and glob order is lost. A stale,
    /// missing or unreadable cache falls back to the XML.
    func registry(_ report: Report, describing: Bool = true) throws -> TypeRegistry {
        var registry = TypeRegistry.builtIn
        try Self.fill(&registry, declarationFiles: declarationFiles, sharedMimeInfo: !noSharedMimeInfo, describing: describing, report)
        return registry
    }

    /// The conformance of the types `registry(_:describing:)` gives, without
    /// their descriptions or tags (see `QuickCommand`).
    static func conformanceGraph(declarationFiles: [String], sharedMimeInfo: Bool, _ report: Report) throws -> TypeConformanceGraph {
        var graph = TypeConformanceGraph.builtIn
        try fill(&graph, declarationFiles: declarationFiles, sharedMimeInfo: sharedMimeInfo, describing: false, report)
        return graph
    }

    private static func fill<Types: TypeSourceTarget>(
        _ types: inout Types, declarationFiles: [String], sharedMimeInfo: Bool, describing: Bool, _ report: Report
    ) throws {
        types.add(TypeDeclarationSet.ict)
        for path in declarationFiles {
            do {
                types.add(try TypeDeclarationSet.read(contentsOf: path))
            } catch {
                throw report.fail(Problem(path: path, error))
            }
        }
        if sharedMimeInfo {
            if !describing, (try? types.addSharedMimeInfoCache(directory: SharedMimeInfoCacheReader.systemDirectoryText)) == true { return }
            do {
                try types.addSharedMimeInfo(directory: SharedMimeInfoReader.systemPackagesDirectoryText)
            } catch {
                throw report.fail(Problem(path: error.pathText ?? SharedMimeInfoReader.systemPackagesDirectoryText, error))
            }
        }
    }
}

/// What `TypeSources` fills: a registry, or the conformance graph alone.
protocol TypeSourceTarget {
    mutating func add(_ set: TypeDeclarationSet)
    mutating func addSharedMimeInfoCache(directory: String) throws(UniformTypeError) -> Bool
    @discardableResult mutating func addSharedMimeInfo(directory: String) throws(UniformTypeError) -> [String]
}

extension TypeRegistry: TypeSourceTarget {}
extension TypeConformanceGraph: TypeSourceTarget {}

/// A type as `--json` shows it (`Schemas/cli/types-*.schema.json`).
struct TypeJSONForm: Encodable {
    var identifier: String
    var description: String?
    var origin: String
    var source: String
    var referenceURL: String?
    /// Each tag class's tags, in the declaration's order: an object whose keys are data, not fields.
    var tags: JSONValue
    /// The types it conforms to directly.
    var conformsTo: [String]

    init(_ declaration: TypeDeclaration, registry: TypeRegistry) {
        identifier = declaration.identifier
        description = declaration.typeDescription
        origin = declaration.origin.rawValue
        source = declaration.source.description
        referenceURL = declaration.referenceURL
        tags = .object(declaration.tags.map { tagClass, tags in (tagClass.rawValue, .array(tags.map(JSONValue.string))) })
        conformsTo = registry.parents(of: declaration.identifier)
    }
}

/// One line naming a type: `identifier  origin  description`.
func typeSummary(_ declaration: TypeDeclaration) -> String {
    // Tab-separated fields, each with its control characters escaped (`TerminalText`).
    var text = "\(TerminalText.escaped(declaration.identifier))\t\(declaration.origin.rawValue)"
    if let description = declaration.typeDescription { text += "\t\(TerminalText.escaped(description))" }
    return text
}
