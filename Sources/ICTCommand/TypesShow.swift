import ArgumentParser
import ICTKitTooling
import UniformTypes

extension Ict.Types {
    /// `ict types show`: one type's declaration and supertypes.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a type: origin, tags and the tree of types it conforms to.",
            discussion: "Exit status: 0 when the type is known, 1 when not."
        )

        @Argument(help: "A uniform type identifier.")
        var identifier: String

        @OptionGroup var sources: TypeSources

        func run() throws {
            let report = Self.report(json: sources.json)
            let registry = try sources.registry(report)
            guard let declaration = registry.declaration(for: identifier) else {
                throw report.fail(Problem(path: identifier, "no such type"))
            }
            report.fields.type = TypeJSONForm(declaration, registry: registry)
            if !sources.json {
                var output = StandardOutput()
                output.writeLine(declaration.identifier)
                if let description = declaration.typeDescription { output.writeLine("  description: \(description)") }
                output.writeLine("  origin: \(declaration.origin.rawValue) (\(declaration.source))")
                if let url = declaration.referenceURL { output.writeLine("  reference: \(url)") }
                if let icon = declaration.iconName { output.writeLine("  icon: \(icon)") }
                if let version = declaration.version { output.writeLine("  version: \(version)") }
                if !declaration.tags.isEmpty {
                    output.writeLine("  tags:")
                    for (tagClass, tags) in declaration.tags { output.writeLine("    \(tagClass): \(tags.joined(separator: " "))") }
                }
                output.writeLine("  conforms to:")
                writeTree(of: declaration.identifier, registry: registry, prefix: "    ", path: [], to: &output)
                output.flush()
            }
            try report.finish()
        }

        /// The parents of `identifier` as a tree; a type already on the path is marked and not expanded.
        private func writeTree(
            of identifier: String, registry: TypeRegistry, prefix: String, path: [String],
            to output: inout StandardOutput
        ) {
            let parents = registry.parents(of: identifier)
            for (index, parent) in parents.enumerated() {
                let isLast = index == parents.count - 1
                let isCycle = path.contains(parent.lowercased()) || parent.lowercased() == identifier.lowercased()
                output.writeLine(prefix + (isLast ? "└─ " : "├─ ") + parent + (isCycle ? " (cycle)" : ""))
                if !isCycle {
                    writeTree(
                        of: parent, registry: registry, prefix: prefix + (isLast ? "   " : "│  "),
                        path: path + [identifier.lowercased()], to: &output)
                }
            }
        }
    }
}

extension Ict.Types.Show: TypedReportingCommand {
    static let reportName = "types show"

    /// `Schemas/cli/types-show.schema.json`.
    struct Fields: ReportFields {
        var type: TypeJSONForm?
    }
}
