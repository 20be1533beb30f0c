import Testing

@testable import LiveQuery

/// `LIKE` on names, checked against NSPredicate's documented meaning: `*`
/// any run (none too), `?` one character, case-sensitive, the whole name.
@Suite struct MetadataQueryPredicateTests {
    @Test(arguments: [
        ("Friend.ict", "*.ict", true),
        ("Friend.ICT", "*.ict", false),
        ("Friend.ict.part", "*.ict", false),
        (".ict", "*.ict", true),
        ("Friend.ict", "Fr?end.ict", true),
        ("Frend.ict", "Fr?end.ict", false),
        ("a*b", "a*b", true),
        ("axxbxxb", "a*b", true),
        ("axxbxxc", "a*b", false),
        ("abc", "*", true),
        ("", "*", true),
        ("", "?", false),
        ("Ä.ict", "?.ict", true),
    ])
    func namePatterns(name: String, pattern: String, matches: Bool) {
        #expect(MetadataQueryPredicate(namePattern: pattern).matchesName(name) == matches)
    }

    @Test func noPatternMatchesEveryName() {
        #expect(MetadataQueryPredicate().matchesName("anything at all"))
    }
}
