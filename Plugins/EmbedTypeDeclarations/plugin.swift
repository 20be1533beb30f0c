import PackagePlugin

/// Embeds the type declaration files of `Schemas/` in the `UniformTypes`
/// module at build time, as Swift string constants, so a relocated program
/// needs no file beside it and no hand-run step keeps code and schema alike:
/// each file's text (EmbedText), and for the system and well-known-app
/// types also a type table (WriteTypeTable), the form the registry is built
/// from on first use. Reading the table costs a few percent of parsing the
/// XML, which was most of the time `ict types conforms` took.
///
/// A string literal rather than `resources: [.embedInCode(…)]`: SwiftPM
/// embeds a resource as a `[UInt8]` array literal, and for the 371 KB
/// `system-types.plist` that took 94 s to compile in release and 175 s in
/// debug (Swift 6.3, two cores); the same bytes as a raw string literal take
/// about two seconds.
@main
struct EmbedTypeDeclarations: BuildToolPlugin {
    /// Each schema, the constant that holds its text, and the file that declares the constant.
    static let files = [
        ("system-types.plist", "systemTypeDeclarationsText", "SystemTypeDeclarations.swift"),
        ("well-known-app-types.plist", "wellKnownAppTypeDeclarationsText", "WellKnownAppTypeDeclarations.swift"),
        ("ict-types.plist", "ictTypeDeclarationsText", "ICTTypeDeclarations.swift"),
    ]

    /// Each schema written as a type table, the constant that holds it, and the file that declares the constant.
    static let tables = [
        ("system-types.plist", "systemTypeTable", "SystemTypeTable.swift"),
        ("well-known-app-types.plist", "wellKnownAppTypeTable", "WellKnownAppTypeTable.swift"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let schemas = context.package.directoryURL.appending(path: "Schemas")
        func command(_ tool: String, _ verb: String, _ schema: String, _ constant: String, _ swiftFile: String) throws -> Command {
            let input = schemas.appending(path: schema)
            let output = context.pluginWorkDirectoryURL.appending(path: swiftFile)
            return .buildCommand(
                displayName: "\(verb) Schemas/\(schema)", executable: try context.tool(named: tool).url,
                arguments: [input.path(percentEncoded: false), output.path(percentEncoded: false), constant, "Schemas/\(schema)"],
                inputFiles: [input], outputFiles: [output])
        }
        return try Self.files.map { try command("EmbedText", "Embedding", $0, $1, $2) }
            + Self.tables.map { try command("WriteTypeTable", "Writing the type table of", $0, $1, $2) }
    }
}
