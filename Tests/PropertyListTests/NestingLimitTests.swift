import Foundation
import PropertyList
import Testing

/// One nesting limit for every reader and writer (`PropertyListLimits.maximumDepth`,
/// 512 by default), so that what one form holds can be written in any other
/// and read back, and nothing deeper is written that could not be read.
struct NestingLimitTests {
    /// `depth` arrays, one inside the other, around the integer 1.
    private func nested(_ depth: Int) -> PropertyListValue {
        var value: PropertyListValue = 1
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    private func isDepthLimit(_ error: PropertyListError) -> Bool { error.code == .limitExceeded(.depth) }

    @Test func everyWriterWritesTheLimitAndEveryReaderReadsItBack() throws {
        let limit = PropertyListLimits.default.maximumDepth
        #expect(limit == 512)
        let value = nested(limit)
        let binary = try BinaryPropertyListWriter().encode(value)
        let xml = try XMLPropertyListWriter().encode(value)
        let json = try JSONPropertyListWriter().encode(value)
        #expect(try BinaryPropertyListReader().read(Data(binary)) == value)
        #expect(try XMLPropertyListReader().read(Data(xml)) == value)
        #expect(try JSONPropertyListReader().read(Data(json)) == value)
        let openStep = String(repeating: "(", count: limit) + "1" + String(repeating: ")", count: limit)
        #expect(try OpenStepPropertyListReader().read(Data(openStep.utf8)) == nested(limit).replacingIntegers())
    }

    @Test func everyWriterRefusesOneLevelMore() {
        let value = nested(PropertyListLimits.default.maximumDepth + 1)
        #expect { try BinaryPropertyListWriter().encode(value) } throws: { isDepthLimit($0 as! PropertyListError) }
        #expect { try XMLPropertyListWriter().encode(value) } throws: { isDepthLimit($0 as! PropertyListError) }
        #expect { try JSONPropertyListWriter().encode(value) } throws: { isDepthLimit($0 as! PropertyListError) }
    }

    @Test func everyReaderRefusesOneLevelMore() throws {
        let depth = PropertyListLimits.default.maximumDepth + 1
        let value = nested(depth)
        // Written with the limit raised, as another tool might write them.
        let binary = try BinaryPropertyListWriter(maximumDepth: depth + 1).encode(value)
        let xml = try XMLPropertyListWriter(maximumDepth: depth + 1).encode(value)
        var jsonWriter = JSONPropertyListWriter()
        jsonWriter.maximumDepth = depth + 1
        let json = try jsonWriter.encode(value)
        let openStep = Data((String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)).utf8)
        #expect { try BinaryPropertyListReader().read(Data(binary)) } throws: { isDepthLimit($0 as! PropertyListError) }
        #expect { try XMLPropertyListReader().read(Data(xml)) } throws: { isDepthLimit($0 as! PropertyListError) }
        #expect { try JSONPropertyListReader().read(Data(json)) } throws: { isDepthLimit($0 as! PropertyListError) }
        #expect { try OpenStepPropertyListReader().read(openStep) } throws: { isDepthLimit($0 as! PropertyListError) }
    }
}

private extension PropertyListValue {
    /// OpenStep has no integers: `1` reads as the string "1".
    func replacingIntegers() -> PropertyListValue {
        switch self {
        case .integer(let value): return .string(value.description)
        case .array(let elements): return .array(elements.map { $0.replacingIntegers() })
        default: return self
        }
    }
}
