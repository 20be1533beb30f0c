import KeyedCoding
import Testing

/// `ArchivedNumber`, checked by hand: NSNumber's equality is by value across storages.
@Suite struct ArchivedNumberTests {
    @Test func equalValuesOfDifferentStorageAreEqual() {
        #expect(ArchivedNumber(value: 8) == ArchivedNumber(value: 8.0))
        #expect(ArchivedNumber(value: Float(3.5)) == ArchivedNumber(value: 3.5))
        #expect(ArchivedNumber(value: true) == ArchivedNumber(value: 1))
        #expect(ArchivedNumber(value: 8) != ArchivedNumber(value: 8.5))
        #expect(Set([ArchivedNumber(value: 8), ArchivedNumber(value: 8.0)]).count == 1)
    }

    @Test func conversions() {
        #expect(ArchivedNumber(value: 3.99).intValue == 3)
        #expect(ArchivedNumber(value: -3.99).int64Value == -3)
        #expect(ArchivedNumber(value: 1e300).int64Value == Int64.max)
        #expect(ArchivedNumber(value: Double.nan).int64Value == 0)
        #expect(ArchivedNumber(value: Float(0.1)).floatValue == Float(0.1))
        #expect(ArchivedNumber(value: Int32(-7)).doubleValue == -7)
        #expect(ArchivedNumber(value: 0).boolValue == false && ArchivedNumber(value: 0.5).boolValue)
        #expect("\(ArchivedNumber(value: 2018))" == "2018" && "\(ArchivedNumber(value: Float(3.5)))" == "3.5")
    }
}
