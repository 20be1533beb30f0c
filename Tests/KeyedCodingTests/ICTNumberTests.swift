import KeyedCoding
import Testing

/// `ICTNumber`, checked by hand: NSNumber's equality is by value across storages.
@Suite struct ICTNumberTests {
    @Test func equalValuesOfDifferentStorageAreEqual() {
        #expect(ICTNumber(value: 8) == ICTNumber(value: 8.0))
        #expect(ICTNumber(value: Float(3.5)) == ICTNumber(value: 3.5))
        #expect(ICTNumber(value: true) == ICTNumber(value: 1))
        #expect(ICTNumber(value: 8) != ICTNumber(value: 8.5))
        #expect(Set([ICTNumber(value: 8), ICTNumber(value: 8.0)]).count == 1)
    }

    @Test func conversions() {
        #expect(ICTNumber(value: 3.99).intValue == 3)
        #expect(ICTNumber(value: -3.99).int64Value == -3)
        #expect(ICTNumber(value: 1e300).int64Value == Int64.max)
        #expect(ICTNumber(value: Double.nan).int64Value == 0)
        #expect(ICTNumber(value: Float(0.1)).floatValue == Float(0.1))
        #expect(ICTNumber(value: Int32(-7)).doubleValue == -7)
        #expect(ICTNumber(value: 0).boolValue == false && ICTNumber(value: 0.5).boolValue)
        #expect("\(ICTNumber(value: 2018))" == "2018" && "\(ICTNumber(value: Float(3.5)))" == "3.5")
    }
}
