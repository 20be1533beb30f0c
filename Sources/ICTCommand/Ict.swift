import ArgumentParser

@main
struct Ict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ict",
        abstract: "Look inside, check and convert property lists and .ict document packages.",
        discussion: """
            Exit status: 0 on success (or all inputs valid), 1 when an input is \
            invalid or an operation failed, 64 on a usage error.
            """,
        version: ICTVersion.current,
        subcommands: [Inspect.self, Convert.self, Validate.self, Types.self, List.self, Thumbnail.self, Create.self, SetFields.self]
    )
}
