import PackagePlugin

/// Embeds the type declaration files of `Schemas/` in the `UniformTypes`
/// module at build time, as Swift string constants, so a relocated program
/// needs no file beside it and no hand-run step keeps code and schema alike.
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

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "EmbedText").url
        let schemas = context.package.directoryURL.appending(path: "Schemas")
        return Self.files.map { schema, constant, swiftFile in
            let input = schemas.appending(path: schema)
            let output = context.pluginWorkDirectoryURL.appending(path: swiftFile)
            return .buildCommand(displayName: "Embedding Schemas/\(schema)", executable: tool,
                                 arguments: [input.path(percentEncoded: false), output.path(percentEncoded: false), constant, "Schemas/\(schema)"],
                                 inputFiles: [input], outputFiles: [output])
        }
    }
}
