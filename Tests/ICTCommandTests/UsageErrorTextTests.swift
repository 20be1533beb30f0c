import Testing

@testable import ICTCommand

/// `ict` rewrites swift-argument-parser's usage errors into one line
/// (`Ict.usageFailure`): it keeps the message's first line and folds the
/// "Please provide one of the following:" list of choices into it. That
/// reads argument-parser's own wording, so the dependency is pinned to a
/// minor version (Package.swift) and these tests say when a new version
/// words it otherwise.
struct UsageErrorTextTests {
    @Test func anInvalidChoiceListsTheChoicesOnOneLine() throws {
        let run = try ICTRunner.run(["convert", "SampleDocs/Coffee.ict", "--format", "nope"])
        #expect(run.status == 64)
        #expect(
            run.stderr
                == "ict: error: the value 'nope' is invalid for '--format <format>'; one of: xml1, binary1, json, keyed-archive, keyed-archive-xml, zip, package, ict, text, jsonl (see 'ict convert --help')\n"
        )
    }

    @Test func anUnknownOptionAndAMissingArgumentAreOneLineEach() throws {
        let unknown = try ICTRunner.run(["inspect", "--bogus", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "ict: error: unknown option '--bogus' (see 'ict inspect --help')\n")
        let missing = try ICTRunner.run(["inspect"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "ict: error: missing expected argument '<input>' (see 'ict inspect --help')\n")
    }

    /// The names `UsageCheck` answers from without asking argument-parser are the ones it gives.
    @Test func theCommandNamesUsageCheckKnowsAreArgumentParsers() {
        let commands = Ict.configuration.subcommands
        #expect(UsageCheck.commandNames.map(\.name) == commands.map { $0._commandName })
        for command in commands {
            let known = UsageCheck.commandNames.first { $0.name == command._commandName }?.commands
            #expect(known == command.configuration.subcommands.map { $0._commandName })
        }
    }
}
