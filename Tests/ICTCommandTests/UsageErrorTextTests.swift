import Foundation
import TestSupport
import Testing

@testable import ICTCommand

/// `ict` prints swift-argument-parser's usage errors on one line
/// (`Ict.usageFailure`): the message's first line, without reading its words.
/// `convert --format`, whose ten choices argument-parser would list one a
/// line, parses its value itself and names the choices on that line.
struct UsageErrorTextTests {
    @Test func anInvalidChoiceListsTheChoicesOnOneLine() throws {
        // Refused before anything is read or written: the document and the folder around it stay as they were.
        let folder = try ScratchFolder()
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder.path + "/Coffee.ict")
        let before = try FolderSnapshot.take(folder.path)
        let refused = try ICTRunner.run(["convert", folder.path + "/Coffee.ict", "--format", "nope", "-o", folder.path + "/out.json"])
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("ict: error: the value 'nope' is invalid for '--format <format>': one of: xml1,"))
        #expect(try FolderSnapshot.take(folder.path) == before)

        let run = try ICTRunner.run(["convert", "SampleDocs/Coffee.ict", "--format", "nope"])
        #expect(run.status == 64)
        #expect(
            run.stderr
                == "ict: error: the value 'nope' is invalid for '--format <format>': one of: xml1, binary1, json, keyed-archive, keyed-archive-xml, zip, package, ict, text, jsonl (see 'ict convert --help')\n"
        )
        // Four choices fit argument-parser's own line.
        let get = try ICTRunner.run(["get", "SampleDocs/Coffee.ict", "x", "--format", "nope"])
        #expect(get.status == 64)
        #expect(
            get.stderr
                == "ict: error: the value 'nope' is invalid for '--format <format>'. Please provide one of 'raw', 'xml1', 'binary1' or 'json' (see 'ict get --help')\n"
        )
    }

    /// The help and the completions still list `convert --format`'s values as argument-parser lists an enum's.
    @Test func convertsFormatValuesAreListedInHelpAndCompletions() throws {
        let help = try ICTRunner.run(["convert", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("The form to write. (values: xml1, binary1, json,\n"))
        #expect(help.stdout.contains("keyed-archive, keyed-archive-xml, zip, package, ict,\n"))
        let completions = try ICTRunner.run(["--generate-completion-script", "bash"])
        #expect(
            completions.stdout.contains(
                #"-W 'xml1'$'\n''binary1'$'\n''json'$'\n''keyed-archive'$'\n''keyed-archive-xml'$'\n''zip'$'\n''package'$'\n''ict'$'\n''text'$'\n''jsonl'"#
            ))
    }

    @Test func anUnknownOptionAndAMissingArgumentAreOneLineEach() throws {
        let unknown = try ICTRunner.run(["inspect", "--bogus", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "ict: error: unknown option '--bogus' (see 'ict inspect --help')\n")
        let missing = try ICTRunner.run(["inspect"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "ict: error: missing expected argument '<input>' (see 'ict inspect --help')\n")
    }

    /// The names `UsageCheck` answers from without asking argument-parser are the ones it gives, and every
    /// command sets its name in its configuration (`UsageCheck.name(of:)` reads that, argument-parser's public
    /// API), the same as argument-parser's own (`_commandName`, which only this test reads).
    @Test func theCommandNamesUsageCheckKnowsAreArgumentParsers() {
        let commands = Ict.configuration.subcommands
        #expect(UsageCheck.commandNames.map(\.name) == commands.map { $0._commandName })
        for command in commands {
            let known = UsageCheck.commandNames.first { $0.name == command._commandName }?.commands
            #expect(known == command.configuration.subcommands.map { $0._commandName })
            for named in [command] + command.configuration.subcommands {
                #expect(named.configuration.commandName == named._commandName)
                #expect(UsageCheck.name(of: named) == named._commandName)
            }
        }
    }

    /// Issue 38 item 10: text given on the command line that is not UTF-8
    /// (`--text $'a\xFFb'`) is refused as `-string` is, a usage error naming
    /// the option and the byte, rather than stored as U+10FFFF; nothing is
    /// made or changed.
    @Test func textThatIsNotUTF8IsRefusedByEveryOptionTakingText() throws {
        let folder = try ScratchFolder.make("utf8").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("<plist><dict><key>a</key><string>x</string></dict></plist>".utf8).write(to: URL(fileURLWithPath: folder + "/a.plist"))
        try Data("Milk\n".utf8).write(to: URL(fileURLWithPath: folder + "/Note.icfnote"))
        try FileManager.default.copyItem(atPath: Repository.path("SampleDocs/Coffee.ict"), toPath: folder + "/Doc.ict")
        let before = try FolderSnapshot.take(folder)
        let bad = Array("a".utf8) + [0xFF] + Array("b".utf8)
        let cases: [(arguments: [[UInt8]], option: String, command: String)] = [
            ([Array("create".utf8), Array((folder + "/New.icfnote").utf8), Array("--text".utf8), bad], "--text", "create"),
            ([Array("set".utf8), Array((folder + "/Note.icfnote").utf8), Array("--text".utf8), bad], "--text", "set"),
            ([Array("set".utf8), Array((folder + "/Doc.ict").utf8), Array("--display-name".utf8), bad], "--display-name", "set"),
            (
                [Array("create".utf8), Array("--name".utf8), Array("New".utf8), Array("--first-name".utf8), bad, Array("-o".utf8), Array(folder.utf8)],
                "--first-name", "create"
            ),
            ([Array("set".utf8), Array((folder + "/a.plist").utf8), Array("a".utf8), Array("-string".utf8), bad], "-string", "set"),
            ([Array("insert".utf8), Array((folder + "/a.plist").utf8), Array("b".utf8), Array("-string".utf8), bad], "-string", "insert"),
        ]
        for (arguments, option, command) in cases {
            let run = try ICTRunner.run(rawArguments: arguments)
            #expect(run.status == 64, "\(option): \(run.stderr)")
            #expect(run.stderr == "ict: error: \(option) is not UTF-8 text: byte 0xFF at offset 1 of the argument (see 'ict \(command) --help')\n")
        }
        // plutil's own command line: its message alone, exit status 1, as its other argument errors.
        let plutil = try ICTRunner.run(rawArguments: [
            Array("plutil".utf8), Array("-replace".utf8), Array("a".utf8), Array("-string".utf8), bad, Array((folder + "/a.plist").utf8),
        ])
        #expect(plutil.status == 1)
        #expect(plutil.stderr == "-string is not UTF-8 text: byte 0xFF at offset 1 of the argument\n")
        #expect(try FolderSnapshot.take(folder) == before)
    }
}
