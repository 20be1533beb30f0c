import Foundation
import PackageFormat
import Testing

@testable import VersionResolveStress

/// Acceptance 2: a child (`VersionResolveStress`) makes conflict sets and
/// resolves them in a loop, keeping in turn a sibling copy, an entry version
/// and the current version; it is killed with SIGKILL at a random moment, 100
/// times. After each kill the document is whole and exactly one version of a
/// round (its data entry names which, and its other entries agree), a copy
/// left beside it is whole too, and nothing else in the folder is lost.
struct VersionResolveCrashTests {
    private static let stressTool: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("VersionResolveStress").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    @Test(.enabled(if: stressTool != nil, "VersionResolveStress is not built beside the test bundle (swift build first)"))
    func killedResolvesLeaveExactlyOneVersion() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("keep me", at: "keep.txt")
        try folder.write("other document", at: "Other.ict/ctdocument.data")
        var generator = SystemRandomNumberGenerator()
        var seen: [String: Int] = [:]
        for kill in 0..<100 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.stressTool!)
            child.arguments = [folder.path, String(kill * 10 + 1)]
            let started = Pipe()
            child.standardOutput = started
            try child.run()
            // Every other kill lands right after the first round's replacement (the child says when), so
            // each kind of resolve is seen whatever the machine's speed; the others land at random, from
            // the child's start or the end of one of its steps, up to 3 ms later, inside a step.
            if kill.isMultiple(of: 2) {
                _ = started.fileHandleForReading.readData(ofLength: 3)
            } else {
                _ = started.fileHandleForReading.readData(ofLength: Int.random(in: 1...4, using: &generator))
                usleep(UInt32.random(in: 0...3_000, using: &generator))
            }
            Foundation.kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "kill \(kill): the child ended by itself")

            guard FileManager.default.fileExists(atPath: folder.appending(ResolveRound.documentName)) else {
                // Killed before its first save of round 1, on the first kill only.
                #expect(kill == 0, "kill \(kill): the document is gone")
                continue
            }
            let label = try folder.read("Friend.ict/ctdocument.data")
            let kind = String(label.prefix { $0 != " " })
            seen[kind, default: 0] += 1
            #expect(["current", "sibling", "entries"].contains(kind), "kill \(kill): data is \(label)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.appending("Friend.ict/ctdocument.metadata"))) == Data(repeating: 7, count: 4096))
            let entries = try folder.names("Friend.ict")
            if kind == "current", entries.count == 3 {
                // Unresolved: the entry copy of the same round is still there, whole.
                let round = label.dropFirst("current ".count)
                #expect(try folder.read("Friend.ict/" + ResolveRound.entryCopyName) == "entries \(round)", "kill \(kill)")
            } else {
                #expect(entries == ["ctdocument.data", "ctdocument.metadata"], "kill \(kill): \(entries)")
            }
            let visible = try folder.names().filter { !$0.hasPrefix(".") }
            #expect(Set(visible).isSubset(of: ["Friend.ict", "Other.ict", "keep.txt", ResolveRound.siblingName]), "kill \(kill): \(visible)")
            #expect(try folder.read("keep.txt") == "keep me")
            #expect(try folder.read("Other.ict/ctdocument.data") == "other document")
            if visible.contains(ResolveRound.siblingName) {
                let sibling = try folder.read(ResolveRound.siblingName + "/ctdocument.data")
                #expect(sibling.hasPrefix("sibling "), "kill \(kill): the copy beside is \(sibling)")
            }
        }
        print("VersionResolveCrashTests: 100 kills, document found as \(seen)")
        #expect(seen.count == 3, "the kills did not land in each kind of resolve: \(seen)")
    }
}
