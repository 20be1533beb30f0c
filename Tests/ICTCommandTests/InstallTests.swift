import Foundation
import TestSupport
import Testing

@testable import ICTCommand

/// `make install`: the static `ict`, its man pages and the bash, zsh and fish
/// completions land under `DESTDIR`/`PREFIX` where those tools look for them.
///
/// `make check-install` has built the static binary and the man pages already, and a
/// test cannot run SwiftPM inside SwiftPM's own test run, so `make` is told
/// (`-o static -o manual`) to take those two prerequisites as made.
@Suite(
    .enabled(if: InstallArtifacts.areRequired, Comment(rawValue: InstallArtifacts.runByCheckInstall)))
struct InstallTests {
    static let subcommands = ["inspect", "convert", "validate", "types", "list", "thumbnail", "create", "set"]
    static let nestedSubcommands = ["show", "conforms", "lookup", "identify"]

    /// Runs `make install` with `variables` into a fresh folder, which it returns.
    private func install(_ variables: (URL) -> [String]) throws -> URL {
        try #require(
            InstallArtifacts.staticBinaryIsBuilt && InstallArtifacts.manPagesAreBuilt,
            "ICT_INSTALL_TESTS=1: \(InstallArtifacts.notBuilt)")
        let folder = try ScratchFolder.make("install")
        // Under make test, the outer make's flags and variables must not reach this one.
        let environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL"].contains($0.key) }
        let run = try ProgramRunner.run(
            "make",
            ["-C", Repository.root.path, "-o", "static", "-o", "manual", "install"]
                + variables(folder), environment: environment)
        try #require(run.status == 0, "make install failed: \(run.stderr)")
        return folder
    }

    /// Whether `text` holds `word` with no letter, digit, `_` or `-` on either side.
    private func mentions(_ text: String, _ word: String) throws -> Bool {
        text.contains(try Regex("(^|[^A-Za-z0-9_-])\(word)([^A-Za-z0-9_-]|$)").anchorsMatchLineEndings())
    }

    @Test func installsUnderPrefix() throws {
        let folder = try install { ["PREFIX=\($0.path)/usr"] }
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("usr")
        let ict = prefix.appendingPathComponent("bin/ict")
        #expect(FileManager.default.isExecutableFile(atPath: ict.path))
        let run = try ProgramRunner.run(ict.path, ["--version"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.stdout == ICTKitVersion.current + "\n")

        let manuals = prefix.appendingPathComponent("share/man/man1")
        let pages = try FileManager.default.contentsOfDirectory(atPath: manuals.path).sorted()
        #expect(pages.contains("ict.1"))
        for subcommand in Self.subcommands {
            #expect(pages.contains("ict.\(subcommand).1"))
        }
        for page in pages {
            let text = try render(manuals.appendingPathComponent(page))
            #expect(text.contains("NAME"), "\(page): \(text)")
            #expect(text.contains("ICTKit \(ICTKitVersion.current)"), "\(page): the version is in the footer")
        }
        let main = try render(manuals.appendingPathComponent("ict.1"))
        for subcommand in Self.subcommands {
            #expect(main.contains("ict.\(subcommand)(1)"), "ict(1) refers to ict.\(subcommand)(1)")
        }

        for path in ["share/bash-completion/completions/ict", "share/zsh/site-functions/_ict", "share/fish/vendor_completions.d/ict.fish"] {
            let script = try String(contentsOf: prefix.appendingPathComponent(path), encoding: .utf8)
            #expect(!script.isEmpty, "\(path)")
            for subcommand in Self.subcommands + Self.nestedSubcommands {
                #expect(try mentions(script, subcommand), "\(path) does not mention \(subcommand)")
            }
        }
    }

    @Test func honoursDestdir() throws {
        let folder = try install { ["DESTDIR=\($0.path)/stage", "PREFIX=/opt/ict"] }
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("stage/opt/ict")
        for path in [
            "bin/ict", "share/man/man1/ict.1", "share/bash-completion/completions/ict",
            "share/zsh/site-functions/_ict", "share/fish/vendor_completions.d/ict.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path), "\(path)")
        }
    }

    /// A man page as `man` shows it, formatted as plain text.
    private func render(_ page: URL) throws -> String {
        #if canImport(Glibc)
        let run = try ProgramRunner.run("man", ["-l", page.path], environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80"])
        #else
        let run = try ProgramRunner.run("mandoc", ["-Tutf8", page.path], environment: ["PATH": "/usr/bin:/bin"])
        #endif
        try #require(run.status == 0, "\(page.lastPathComponent): \(run.stderr)")
        return run.stdout
    }
}
