import ArgumentParser
import UniformTypes

extension Ict.Types {
    /// `ict types show`: one type's declaration and supertypes.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
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
            report["type"] = typeJSON(declaration, registry: registry)
            if !sources.json {
                var output = StandardOutput()
                output.write("\(declaration.identifier)\n")
                if let description = declaration.typeDescription { output.write("  description: \(description)\n") }
                output.write("  origin: \(declaration.origin.rawValue) (\(declaration.source))\n")
                if let url = declaration.referenceURL { output.write("  reference: \(url)\n") }
                if let icon = declaration.iconName { output.write("  icon: \(icon)\n") }
                if let version = declaration.version { output.write("  version: \(version)\n") }
                if !declaration.tags.isEmpty {
                    output.write("  tags:\n")
                    for (tagClass, tags) in declaration.tags { output.write("    \(tagClass): \(tags.joined(separator: " "))\n") }
                }
                output.write("  conforms to:\n")
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
                output.write(prefix + (isLast ? "└─ " : "├─ ") + parent + (isCycle ? " (cycle)" : "") + "\n")
                if !isCycle {
                    writeTree(
                        of: parent, registry: registry, prefix: prefix + (isLast ? "   " : "│  "),
                        path: path + [identifier.lowercased()], to: &output)
                }
            }
        }
    }
}

extension Ict.Types.Show: ReportingCommand {
    static let reportName = "types show"
    static let reportFields = ["type"]
}
