import PropertyList
import Testing

/// `PropertyListKeyPath(plutilSyntax:)` and reading and editing values by key path.
struct PropertyListKeyPathEditingTests {
    let sample: PropertyListValue = ["a": ["b": [1, 2]], "dot.ted": "d"]

    @Test func parsesPlutilSyntaxWithEscapedDots() {
        #expect(PropertyListKeyPath(plutilSyntax: "a.b.2").components == [.key("a"), .key("b"), .key("2")])
        #expect(PropertyListKeyPath(plutilSyntax: "dot\\.ted").components == [.key("dot.ted")])
        #expect(PropertyListKeyPath(plutilSyntax: "").components == [.key("")])
        #expect(PropertyListKeyPath(plutilSyntax: "x\\.y.z").plutilDescription == "x\\.y.z")
    }

    @Test func readsThroughArraysByNumber() {
        #expect(sample.value(at: PropertyListKeyPath(plutilSyntax: "a.b.1")) == 2)
        #expect(sample.value(at: PropertyListKeyPath(plutilSyntax: "a.b.2")) == nil)
        #expect(sample.value(at: PropertyListKeyPath(plutilSyntax: "dot\\.ted")) == "d")
    }

    @Test func insertsReplacesAndAppends() throws {
        var value = sample
        try value.setValue(0, at: PropertyListKeyPath(plutilSyntax: "a.b.0"), mode: .insert)
        try value.setValue(9, at: PropertyListKeyPath(plutilSyntax: "a.b.3"), mode: .insert)
        try value.setValue(5, at: PropertyListKeyPath(plutilSyntax: "a.b.1"), mode: .replace)
        try value.setValue(7, at: PropertyListKeyPath(plutilSyntax: "a.b"), mode: .append)
        #expect(value.value(at: PropertyListKeyPath(plutilSyntax: "a.b")) == [0, 5, 2, 9, 7])
    }

    @Test func failuresSayWhyAndLeaveTheValue() {
        var value = sample
        let cases: [(String, PropertyListEditMode, PropertyListKeyPathError.Code)] = [
            ("a.b.5", .insert, .indexOutOfRange(5)), ("a.b.x", .insert, .notAnIndex), ("a", .insert, .exists),
            ("dot\\.ted.x", .insert, .notAContainer), ("no.where", .replace, .missing), ("dot\\.ted", .append, .notAnArray(parentIsArray: false)),
        ]
        for (text, mode, code) in cases {
            do {
                try value.setValue("v", at: PropertyListKeyPath(plutilSyntax: text), mode: mode)
                Issue.record("\(text) should fail")
            } catch {
                #expect(error.code == code, "\(text)")
            }
            #expect(value == sample, "\(text)")
        }
        #expect(throws: PropertyListKeyPathError.self) { try value.removeValue(at: PropertyListKeyPath(plutilSyntax: "a.c")) }
        #expect(value == sample)
    }

    @Test func removes() throws {
        var value = sample
        try value.removeValue(at: PropertyListKeyPath(plutilSyntax: "a.b.0"))
        try value.removeValue(at: PropertyListKeyPath(plutilSyntax: "dot\\.ted"))
        #expect(value == ["a": ["b": [2]]])
    }
}
