import PropertyList
import Testing

/// `EmbeddedKeyPath`: `plutil`'s key-path grammar with `ply`'s `!` step
/// into a data value, and `\!` for a `!` in a key.
struct EmbeddedKeyPathTests {
    @Test(arguments: [
        // text, segments as plutil-syntax texts, the path written back
        ("Font!", [["Font"], []], "Font!"),
        ("Font!.$top.root", [["Font"], ["$top", "root"]], "Font!.$top.root"),
        ("a.b!.c!.d", [["a", "b"], ["c"], ["d"]], "a.b!.c!.d"),
        ("Hello\\!", [["Hello!"]], "Hello\\!"),
        ("a!b.c", [["a!b", "c"]], "a!b.c"),
        ("dot\\.ted!.x", [["dot.ted"], ["x"]], "dot\\.ted!.x"),
        ("bang!!.x", [["bang!"], ["x"]], "bang\\!!.x"),
        ("", [[""]], ""),
    ])
    func parsesStepsAndEscapes(_ text: String, _ expected: [[String]], _ written: String) {
        let path = EmbeddedKeyPath(parsing: text)
        #expect(path.segments == expected.map { PropertyListKeyPath($0.map(PropertyListPathComponent.key)) })
        #expect(path.description == written)
        #expect(EmbeddedKeyPath(parsing: written) == path)
        #expect(path.hasSteps == (expected.count > 1))
    }

    /// Without a step, the grammar is plutil's (a backslash before anything
    /// but `.` or `!` is kept), so every existing key path means what it did.
    @Test(arguments: ["a.b.2", "dot\\.ted", "back\\slash", "x\\.y.z", "trailing\\"])
    func withoutStepsItIsPlutilSyntax(_ text: String) {
        #expect(EmbeddedKeyPath(parsing: text).segments == [PropertyListKeyPath(plutilSyntax: text)])
    }
}
