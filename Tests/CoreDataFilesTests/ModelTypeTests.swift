import CoreDataFiles
import Testing

@Suite struct ModelTypeTests {
    // The codes and names are Core Data's (NSAttributeType in NSAttributeDescription.h; the names Xcode writes).
    @Test func attributeTypeCodesAndNames() {
        let expected: [(Int, String)] = [
            (0, "Undefined"), (100, "Integer 16"), (200, "Integer 32"), (300, "Integer 64"), (400, "Decimal"), (500, "Double"),
            (600, "Float"), (700, "String"), (800, "Boolean"), (900, "Date"), (1000, "Binary"), (1100, "UUID"), (1200, "URI"),
            (1800, "Transformable"), (2000, "ObjectID"), (2100, "Composite"),
        ]
        #expect(AttributeType.allCases.map { ($0.code) } == expected.map(\.0))
        for (code, name) in expected {
            #expect(AttributeType(code: code)?.modelName == name)
            #expect(AttributeType(modelName: name)?.code == code)
        }
        #expect(AttributeType(code: 150) == nil)
        #expect(AttributeType(modelName: "Integer 128") == nil)
    }
}
