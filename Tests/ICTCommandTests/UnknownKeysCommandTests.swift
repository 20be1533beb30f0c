import Foundation
import TestSupport
import Testing

/// Issue 38 item 4: keys a newer app added to a document's entries survive
/// every field setter of `ict set`, and `ict diff` reports them. The keys
/// are written, and read back after the edit, by Python's `plistlib`
/// (`UnknownArchiveKeys`): the expected values are the entry's own before
/// the edit, resolved object by object.
struct UnknownKeysCommandTests {
    private static let samples = Repository.root.appendingPathComponent("SampleDocs").path
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-unknown-keys").path
    }

    /// A copy of the sample `name` in the scratch folder, its path.
    private func copy(_ name: String, as newName: String? = nil) throws -> String {
        let path = folder + "/" + (newName ?? name)
        try FileManager.default.copyItem(atPath: Self.samples + "/" + name, toPath: path)
        return path
    }

    /// A 600 × 600 PNG (Chelsea.ict's photo, scaled), to set as a photo.
    private func photo() throws -> String {
        let path = folder + "/photo.png"
        let made = try ICTRunner.run(["thumbnail", Self.samples + "/Chelsea.ict", "-o", path, "--size", "600"])
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func theIssuesTwoRunsKeepTheKeySetByKeyPath() throws {
        let document = try copy("Rocket.ict")
        let first = try ICTRunner.run(["set", document, "ctdocument.data:NOTE", "-string", "k"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try ICTRunner.run(["set", document, "--first-name", "Bob"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "\(document): saved\n")
        let after = try UnknownArchiveKeys.resolved(inEntryAt: document + "/ctdocument.data", topKey: "DATA", keys: ["NOTE", "FIRST_NAME"])
        #expect(after == #"{"$same object": [], "FIRST_NAME": {"string": "Bob"}, "NOTE": {"string": "k"}}"# + "\n")
    }

    /// Each field setter a user would try, with the entries it rewrites.
    static let setters: [(arguments: [String], rewrites: Set<String>)] = [
        (["--first-name", "Bob"], ["ctdocument.data"]),
        (["--last-name", "Smith"], ["ctdocument.data"]),
        (["--display-name", "Someone else"], ["ctdocument.data", "ctdocument.metadata"]),
        (["--favorite-number", "12.5"], ["ctdocument.data"]),
        (["--photo", "PHOTO"], ["ctdocument.data", "ctdocument.metadata"]),
        (["--first-name", "Bob", "--display-name", "Bob B", "--favorite-number", "3"], ["ctdocument.data", "ctdocument.metadata"]),
    ]

    @Test(arguments: setters)
    func everyFieldSetterKeepsUnknownKeysOfEveryTypeInBothEntries(_ setter: (arguments: [String], rewrites: Set<String>)) throws {
        let document = try copy("Rocket.ict")
        let entries = ["ctdocument.data", "ctdocument.metadata"]
        var before: [String: String] = [:]
        var bytesBefore: [String: Data] = [:]
        for entry in entries {
            try UnknownArchiveKeys.add(toEntryAt: document + "/" + entry, topKey: "DATA")
            before[entry] = try UnknownArchiveKeys.resolved(inEntryAt: document + "/" + entry, topKey: "DATA")
            bytesBefore[entry] = try bytes(document + "/" + entry)
        }
        let photo = try photo()
        let run = try ICTRunner.run(["set", document] + setter.arguments.map { $0 == "PHOTO" ? photo : $0 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(document): saved\n")
        for entry in entries {
            // The setter did rewrite the entry (so the keys went through decoding and encoding), and kept them.
            #expect(try bytes(document + "/" + entry) != bytesBefore[entry] || !setter.rewrites.contains(entry), "\(entry) not rewritten")
            #expect(try UnknownArchiveKeys.resolved(inEntryAt: document + "/" + entry, topKey: "DATA") == before[entry], "\(entry)")
        }
        #expect(try ICTRunner.run(["validate", document]).status == 0)
    }

    @Test func aSecondEditKeepsTheKeysTheFirstKept() throws {
        let document = try copy("Rocket.ict")
        try UnknownArchiveKeys.add(toEntryAt: document + "/ctdocument.data", topKey: "DATA")
        let before = try UnknownArchiveKeys.resolved(inEntryAt: document + "/ctdocument.data", topKey: "DATA")
        #expect(try ICTRunner.run(["set", document, "--first-name", "Bob"]).status == 0)
        #expect(try ICTRunner.run(["set", document, "--last-name", "Builder"]).status == 0)
        #expect(try UnknownArchiveKeys.resolved(inEntryAt: document + "/ctdocument.data", topKey: "DATA") == before)
        let names = try UnknownArchiveKeys.resolved(inEntryAt: document + "/ctdocument.data", topKey: "DATA", keys: ["FIRST_NAME", "LAST_NAME"])
        #expect(names == #"{"$same object": [], "FIRST_NAME": {"string": "Bob"}, "LAST_NAME": {"string": "Builder"}}"# + "\n")
    }

    @Test func thePhotoOfAPTKDocumentKeepsUnknownKeysInBothEntries() throws {
        let document = try copy("Coffee.ptk")
        let entries = ["photo.data", "photo.metadata"]
        var before: [String: String] = [:]
        var bytesBefore: [String: Data] = [:]
        for entry in entries {
            try UnknownArchiveKeys.add(toEntryAt: document + "/" + entry, topKey: "data")
            before[entry] = try UnknownArchiveKeys.resolved(inEntryAt: document + "/" + entry, topKey: "data")
            bytesBefore[entry] = try bytes(document + "/" + entry)
        }
        let run = try ICTRunner.run(["set", document, "--photo", try photo()])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(document): saved\n")
        for entry in entries {
            #expect(try bytes(document + "/" + entry) != bytesBefore[entry], "\(entry) not rewritten")
            #expect(try UnknownArchiveKeys.resolved(inEntryAt: document + "/" + entry, topKey: "data") == before[entry], "\(entry)")
        }
    }

    @Test func diffReportsAKeyOnlyOneDocumentHasAndOneThatDiffers() throws {
        let old = try copy("Rocket.ict", as: "Old.ict")
        let new = try copy("Rocket.ict", as: "New.ict")
        #expect(try ICTRunner.run(["set", new, "ctdocument.metadata:NOTE", "-string", "added"]).status == 0)
        let added = try ICTRunner.run(["diff", old, new])
        #expect(added.status == 1)
        #expect(added.stdout == "+ ctdocument.metadata:NOTE: \"added\"\n")
        #expect(added.stderr == "")

        #expect(try ICTRunner.run(["set", old, "ctdocument.metadata:NOTE", "-string", "other"]).status == 0)
        #expect(try ICTRunner.run(["set", old, "ctdocument.data:COUNT", "-integer", "1"]).status == 0)
        #expect(try ICTRunner.run(["set", new, "ctdocument.data:COUNT", "-integer", "2"]).status == 0)
        let changed = try ICTRunner.run(["diff", old, new])
        #expect(changed.status == 1)
        #expect(changed.stdout == "~ ctdocument.metadata:NOTE: \"other\" → \"added\"\n~ ctdocument.data:COUNT: 1 → 2\n")

        let json = try ICTRunner.run(["diff", "--json", old, new])
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let places = (report?["differences"] as? [[String: Any]] ?? []).map { "\($0["entry"] ?? "-") \($0["keyPath"] ?? "-")" }
        #expect(places == ["ctdocument.metadata NOTE", "ctdocument.data COUNT"])
    }

    @Test func diffReportsADifferenceDeepInsideAnUnknownKeysObjects() throws {
        let old = try copy("Rocket.ict", as: "Old.ict")
        let new = try copy("Rocket.ict", as: "New.ict")
        try UnknownArchiveKeys.add(toEntryAt: old + "/ctdocument.data", topKey: "DATA")
        try UnknownArchiveKeys.add(toEntryAt: new + "/ctdocument.data", topKey: "DATA")
        #expect(try ICTRunner.run(["diff", old, new]).status == 0)
        // FRIEND's name, a string object two references from the root.
        #expect(try ICTRunner.run(["set", new, "ctdocument.data:FRIEND.name", "-string", "Ada"]).status == 0)
        let run = try ICTRunner.run(["diff", old, new])
        #expect(run.status == 1)
        #expect(run.stdout == "~ ctdocument.data:FRIEND.name: \"Grace\" → \"Ada\"\n", "\(run.stdout)")
    }
}
