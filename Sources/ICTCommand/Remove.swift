import ArgumentParser
import ICTKitTooling
import PropertyList

extension Ict {
    /// `ict remove`: remove the value at a key path.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove the value at a key path.",
            discussion: "Nothing there is an error (exit status 1) and the file is left as it was."
        )

        @OptionGroup var arguments: KeyPathArguments
        @OptionGroup var links: LinkOptions

        func run() throws {
            try KeyPathEdit.run(
                Self.self, links.documentPath(arguments.file), keyPath: arguments.keyPath, limits: arguments.input.limits, json: arguments.json,
                followingLast: false
            ) { propertyList, keyPath throws(PropertyListKeyPathError) in
                try propertyList.removeValue(at: keyPath)
            }
        }
    }
}

extension Ict.Remove: TypedReportingCommand {
    static let reportName = "remove"
    typealias Fields = KeyPathEditFields
}
