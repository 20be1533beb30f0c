import Foundation
import PropertyList
import Testing

/// `PropertyListError.Code` and `PropertyListKeyPathError.Code`: the code a
/// bad input gets (and that the error still says where), how codes with
/// payloads compare, their names, and a `switch` over them.
struct ErrorCodeTests {
    @Test func truncatedBinaryInputIsTruncatedAtTheObject() {
        // bplist00, then at byte 8 an array (0xAF) whose count, an int of
        // 4 bytes (0x12), is 0x7FFFFFFF: its references run past the end.
        let object: [UInt8] = [0xAF, 0x12, 0x7F, 0xFF, 0xFF, 0xFF]
        let offsetTable: [UInt8] = [8]
        let trailer: [UInt8] =
            [0, 0, 0, 0, 0, 0, 1, 1]  // 1-byte offsets and references
            + [0, 0, 0, 0, 0, 0, 0, 1]  // one object
            + [0, 0, 0, 0, 0, 0, 0, 0]  // the top object is object 0
            + [0, 0, 0, 0, 0, 0, 0, 14]  // the offset table starts at byte 14
        let bytes = Array("bplist00".utf8) + object + offsetTable + trailer
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyListReader().read(Data(bytes)) }
        #expect(error?.code == .truncated)
        #expect(error?.code != .invalidTrailer)
        #expect(error?.code.limit == nil)
        #expect(error?.location == .byteOffset(8))
    }

    @Test func nestingPastTheLimitNamesTheLimitLineAndPath() {
        let xml = """
            <plist version="1.0">
            <array>
            <array>
            <array>
            </array>
            </array>
            </array>
            </plist>
            """
        let reader = XMLPropertyListReader(limits: PropertyListLimits(maximumDepth: 2))
        let error = #expect(throws: PropertyListError.self) { try reader.read(Data(xml.utf8)) }
        #expect(error?.code == .limitExceeded(.depth))
        #expect(error?.code.limit == .depth)
        #expect(error?.location == .lineColumn(line: 4, column: 1))
        #expect(error?.keyPath.description == "[0][0]")
    }

    @Test func codesWithALimitCompareByTheLimit() {
        let depth = PropertyListError.Code.limitExceeded(.depth)
        #expect(depth == .limitExceeded(.depth))
        #expect(depth != .limitExceeded(.objectCount))
        #expect(depth != .truncated)
        #expect(depth.limit == .depth)
        #expect(PropertyListError.Code.limitExceeded(.inputSize).limit == .inputSize)
        #expect(PropertyListError.Code.io.limit == nil)
        #expect(Set<PropertyListError.Code>([.truncated, .truncated, depth, .limitExceeded(.depth)]).count == 2)
    }

    @Test func codesAreNamedByTheirMember() {
        #expect(PropertyListError.Code.truncated.description == "truncated")
        #expect(PropertyListError.Code.malformedXML.description == "malformedXML")
        #expect(PropertyListError.Code.io.description == "io")
        #expect(PropertyListError.Code.limitExceeded(.depth).description == "limitExceeded(depth)")
        #expect(PropertyListError.Code.limitExceeded(.objectCount).description == "limitExceeded(objectCount)")
        #expect("\(PropertyListError.Code.invalidTrailer)" == "invalidTrailer")
    }

    @Test func aSwitchWithADefaultPicksTheCode() {
        func branch(_ code: PropertyListError.Code) -> String {
            switch code {
            case .truncated: "truncated"
            case .limitExceeded(.depth): "too deep"
            case .limitExceeded(.objectCount), .limitExceeded(.inputSize): "too big"
            default: "other"
            }
        }
        #expect(branch(.truncated) == "truncated")
        #expect(branch(.limitExceeded(.depth)) == "too deep")
        #expect(branch(.limitExceeded(.inputSize)) == "too big")
        #expect(branch(.cycle) == "other")
    }

    @Test func keyPathEditingCodesCarryTheIndexAndParent() {
        var value: PropertyListValue = ["a": [1, 2]]
        let error = #expect(throws: PropertyListKeyPathError.self) {
            try value.setValue(3, at: PropertyListKeyPath(plutilSyntax: "a.5"), mode: .insert)
        }
        #expect(error?.code == .indexOutOfRange(5))
        #expect(error?.code != .indexOutOfRange(2))
        #expect(error?.code.index == 5)
        #expect(error?.code.parentIsArray == nil)
        #expect(error?.keyPath.plutilDescription == "a.5")
        #expect(error?.message == "index 5 is past the end of the array at 'a'")
        #expect(value == ["a": [1, 2]])

        let notAnArray = PropertyListKeyPathError.Code.notAnArray(parentIsArray: true)
        #expect(notAnArray == .notAnArray(parentIsArray: true))
        #expect(notAnArray != .notAnArray(parentIsArray: false))
        #expect(notAnArray.parentIsArray == true)
        #expect(notAnArray.index == nil)
        #expect(PropertyListKeyPathError.Code.missing.description == "missing")
        #expect(PropertyListKeyPathError.Code.indexOutOfRange(3).description == "indexOutOfRange(3)")
        #expect(notAnArray.description == "notAnArray(parentIsArray: true)")

        let branch =
            switch error?.code ?? .root {
            case .missing, .exists: "absent or present"
            case .indexOutOfRange(5): "index 5"
            default: "other"
            }
        #expect(branch == "index 5")
    }
}
