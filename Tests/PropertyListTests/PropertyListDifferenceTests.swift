import Foundation
import PropertyList
import Testing

/// Where two property lists differ, by key path (expected lists written by hand).
struct PropertyListDifferenceTests {
    @Test func equalListsHaveNoDifference() {
        let value: PropertyListValue = ["a": [1, 2, ["b": "c"]], "d": .data(Data([1]))]
        #expect(PropertyListDifference.between(value, value).isEmpty)
    }

    @Test func namesEachRemovedAddedAndChangedValueByItsKeyPath() {
        let old: PropertyListValue = ["name": "Ada", "tags": ["x", "y", "z"], "gone": true, "n": 1]
        let new: PropertyListValue = ["name": "Ada L", "tags": ["x", "w"], "n": 1.0, "born": 1815]
        let differences = PropertyListDifference.between(old, new)
        #expect(
            differences.map { "\($0.kind.rawValue) \($0.keyPath)" } == [
                "changed name", "changed tags[1]", "removed tags[2]", "removed gone", "changed n", "added born",
            ])
        #expect(differences[0].old == "Ada" && differences[0].new == "Ada L")
        #expect(differences[4].old == 1 && differences[4].new == .real(1))  // an integer and a real are not equal
    }

    @Test func aValueOfAnotherKindIsChangedWhole() {
        let differences = PropertyListDifference.between(["a": ["b": 1]], ["a": [1]])
        #expect(differences == [PropertyListDifference(.changed, at: [.key("a")], old: ["b": 1], new: [1])])
    }
}
