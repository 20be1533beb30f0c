import PackagePlugin

/// Embeds the schema files of `Schemas/` in the modules that read them, at
/// build time, as Swift string constants, so a relocated program needs no
/// file beside it and no hand-run step keeps code and schema alike: in
/// `UniformTypes`, each type declaration file's text, and for the system and
/// well-known-app types also a type table, the form the registry is built
/// from on first use (reading the table costs a few percent of parsing the
/// XML, which was most of the time `ict types conforms` took); in
/// `DocumentFormats`, the `.ict` and `.ptk` document schemas. One tool, SchemaEmbedder,
/// writes them all.
///
/// A string literal rather than `resources: [.embedInCode(…)]`: SwiftPM
/// embeds a resource as a `[UInt8]` array literal, and for the 371 KB
/// `system-types.plist` that took 94 s to compile in release and 175 s in
/// debug (Swift 6.3, two cores); the same bytes as a raw string literal take
/// about two seconds.
@main
struct EmbedSchemas: BuildToolPlugin {
    /// One generated file: the tool's mode, the schema, the constant, the
    /// Swift file that declares it, and (for `text`) the type it extends or `-`.
    struct Embedding {
        var mode: String
        var schema: String
        var constant: String
        var swiftFile: String
        var container: String?
    }

    /// What each target embeds.
    static let embeddings: [String: [Embedding]] = [
        "UniformTypes": [
            Embedding(
                mode: "text", schema: "system-types.plist", constant: "systemTypeDeclarationsText",
                swiftFile: "SystemTypeDeclarations.swift", container: "TypeDeclarationSet"),
            Embedding(
                mode: "text", schema: "well-known-app-types.plist", constant: "wellKnownAppTypeDeclarationsText",
                swiftFile: "WellKnownAppTypeDeclarations.swift", container: "TypeDeclarationSet"),
            Embedding(
                mode: "text", schema: "ict-types.plist", constant: "ictTypeDeclarationsText",
                swiftFile: "ICTTypeDeclarations.swift", container: "TypeDeclarationSet"),
            Embedding(mode: "table", schema: "system-types.plist", constant: "systemTypeTable", swiftFile: "SystemTypeTable.swift"),
            Embedding(
                mode: "table", schema: "well-known-app-types.plist", constant: "wellKnownAppTypeTable",
                swiftFile: "WellKnownAppTypeTable.swift"),
        ],
        "DocumentFormats": [
            Embedding(
                mode: "text", schema: "ict-document.schema.plist", constant: "ictDocumentSchemaText",
                swiftFile: "ICTDocumentSchemaText.swift", container: "-"),
            Embedding(
                mode: "text", schema: "ptk-document.schema.plist", constant: "ptkDocumentSchemaText",
                swiftFile: "PTKDocumentSchemaText.swift", container: "-"),
        ],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let schemas = context.package.directoryURL.appending(path: "Schemas")
        let tool = try context.tool(named: "SchemaEmbedder").url
        return (Self.embeddings[target.name] ?? []).map { embedding in
            let input = schemas.appending(path: embedding.schema)
            let output = context.pluginWorkDirectoryURL.appending(path: embedding.swiftFile)
            let verb = embedding.mode == "text" ? "Embedding" : "Writing the type table of"
            return .buildCommand(
                displayName: "\(verb) Schemas/\(embedding.schema)", executable: tool,
                arguments: [
                    embedding.mode, input.path(percentEncoded: false), output.path(percentEncoded: false), embedding.constant,
                    "Schemas/\(embedding.schema)",
                ] + (embedding.container.map { [$0] } ?? []),
                inputFiles: [input], outputFiles: [output])
        }
    }
}
