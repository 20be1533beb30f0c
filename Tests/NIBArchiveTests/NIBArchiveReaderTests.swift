import NIBArchive
import PropertyList
import Testing

@Suite struct NIBArchiveReaderTests {
    @Test(.nibarchivePeer, arguments: Fixtures.nibArchives)
    func everyTableEntryIsWhatNibarchiveReads(name: String) throws {
        let file = try NIBArchiveReader().read(try Fixtures.bytes(name))
        let peer = try #require(try Fixtures.peer(name).dictionaryValue)
        let expected = try #require(peer["file"]?.dictionaryValue)
        let mine = try #require(file.jsonForm.dictionaryValue)
        // Table by table, so a difference names its table.
        for table in ["format", "formatVersion", "coderVersion", "objects", "keys", "classNames"] {
            #expect(mine[table] == expected[table], "\(name): \(table)")
        }
        let myValues = try #require(mine["values"]?.arrayValue)
        let peerValues = try #require(expected["values"]?.arrayValue)
        #expect(myValues.count == peerValues.count)
        for (index, (value, peerValue)) in zip(myValues, peerValues).enumerated() where value != peerValue {
            Issue.record("\(name): value \(index) is \(value), nibarchive reads \(peerValue)")
        }
    }

    @Test func headerOfOneFileAsReadByHand() throws {
        // xxd InstallViewController.nib: after the magic, 01 00 00 00 | 09 00 00 00 | 89 00 00 00 (137 objects)
        // | 32 00 00 00 (at byte 50) | 60 00 00 00 (96 keys) | 3d 02 00 00 (at 573) | ae 02 00 00 (686 values)
        // | 09 09 00 00 (at 2313) | 1b 00 00 00 (27 class names) | ab 1d 00 00 (at 7595).
        let file = try NIBArchiveReader().read(try Fixtures.bytes("InstallViewController.nib"))
        #expect(file.formatVersion == 1 && file.coderVersion == 9)
        #expect(file.objects.count == 137 && file.keys.count == 96 && file.values.count == 686 && file.classNames.count == 27)
        #expect(file.objects[0].byteOffset == 50)
        #expect(file.values[0].byteOffset == 2313)
        // The root: NSObject, whose first key is UINibTopLevelObjectsKey.
        #expect(file.className(ofObject: 0) == "NSObject")
        #expect(file.fields(ofObject: 0).first?.key == "UINibTopLevelObjectsKey")
        #expect(file.string(ofObject: 4) == "_teleprompterView")
    }

    @Test func aHandBuiltFileReadsAsBuilt() throws {
        let file = try NIBArchiveReader().read(NIBArchiveBuilder().bytes)
        #expect(file.fields(ofObject: 0).map(\.key) == ["child", "flag"])
        #expect(file.value(ofObject: 0, forKey: "child") == .object(1))
        #expect(file.value(ofObject: 0, forKey: "flag") == .bool(true))
        #expect(file.classNames[1] == NIBArchiveFile.ClassName(name: "NSString", extras: [7]))
        #expect(file.string(ofObject: 1) == "hi")
    }

    @Test func everyValueTypeReads() throws {
        var builder = NIBArchiveBuilder()
        builder.values = [
            (0, 0, [0xFF]), (0, 1, [0x00, 0x80]), (0, 2, [1, 0, 0, 0x80]), (0, 3, [0, 0, 0, 0, 0, 0, 0xF0, 0x3F]),
            (0, 5, []), (0, 6, [0, 0, 0xC0, 0x3F]), (0, 7, [0, 0, 0, 0, 0, 0, 0xF0, 0x3F]), (0, 9, []),
        ]
        builder.objects = [(0, 0, 8)]
        let values = try NIBArchiveReader().read(builder.bytes).values.map(\.value)
        // By hand: 0xFF = -1; 0x8000 = -32768; 0x80000001 = -2147483647; 0x3FF0… as Int64; 0x3FC00000 = 1.5; 0x3FF0… = 1.0.
        #expect(
            values == [
                .int8(-1), .int16(-32768), .int32(-2_147_483_647), .int64(0x3FF0_0000_0000_0000), .bool(false), .float(1.5),
                .double(1.0), .nil,
            ])
    }

    // MARK: Malformed inputs: each refused with its code and byte offset.

    private func refusal(_ bytes: [UInt8], limits: NIBArchiveLimits = .default) -> NIBArchiveError? {
        do {
            _ = try NIBArchiveReader(limits: limits).read(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func notTheMagic() {
        #expect(refusal(Array("bplist00".utf8))?.code == .notANibArchive)
        #expect(refusal([])?.code == .notANibArchive)
    }

    @Test func truncatedInsideTheHeader() {
        let error = refusal(Array(NIBArchiveBuilder().bytes.prefix(30)))
        #expect(error?.code == .truncated && error?.byteOffset == 30)
    }

    @Test(arguments: 51..<NIBArchiveBuilder().bytes.count)
    func truncatedAnywhereInTheTables(length: Int) {
        // Cutting the file short leaves a table offset or count past the end, or a table ending early.
        let error = refusal(Array(NIBArchiveBuilder().bytes.prefix(length)))
        #expect(error != nil, "cut at \(length)")
        #expect((error?.byteOffset ?? .max) <= length)
    }

    @Test func aCountLargerThanTheBytesLeft() {
        var bytes = NIBArchiveBuilder().bytes
        bytes[34] = 0xFF  // The values' count (bytes 34...37): 255 values cannot fit in what is left.
        let error = refusal(bytes)
        #expect(error?.code == .invalidHeader && error?.byteOffset == 34)
    }

    @Test func anOffsetPastTheEnd() {
        var bytes = NIBArchiveBuilder().bytes
        bytes[47] = 0x7F  // The class names' offset (bytes 46...49) becomes 0x7Fxx, past the end.
        let error = refusal(bytes)
        #expect(error?.code == .invalidHeader && error?.byteOffset == 46)
    }

    @Test func aTableThatDoesNotEndWhereTheNextStarts() {
        var bytes = NIBArchiveBuilder().bytes
        bytes[30] &+= 1  // The keys' offset (bytes 30...33) one byte later than the objects end.
        let error = refusal(bytes)
        #expect(error?.code == .invalidHeader && error?.byteOffset == 56)  // 2 objects × 3 one-byte varints end at 56.
    }

    @Test func aCountOverTheLimit() {
        let error = refusal(NIBArchiveBuilder().bytes, limits: NIBArchiveLimits(maximumCount: 2))
        #expect(error?.code == .limitExceeded(.count) && error?.byteOffset == 26)  // The keys' count: 3.
    }

    @Test func anInputOverTheSizeLimit() {
        #expect(refusal(NIBArchiveBuilder().bytes, limits: NIBArchiveLimits(maximumInputSize: 60))?.code == .limitExceeded(.inputSize))
    }

    @Test func aReferenceOutOfRange() {
        var builder = NIBArchiveBuilder()
        builder.values[0].payload = [9, 0, 0, 0]  // Object 9 of 2.
        let error = refusal(builder.bytes)
        let valuesStart = 50 + 6 + (6 + 5 + 9)  // Header, objects, keys "child", "flag", "NS.bytes" with their lengths.
        #expect(error?.code == .invalidIndex && error?.byteOffset == valuesStart)
    }

    @Test func aValueRangePastTheValues() {
        var builder = NIBArchiveBuilder()
        builder.objects[1] = (1, 2, 5)  // Values 2..<7 of 3.
        let error = refusal(builder.bytes)
        #expect(error?.code == .invalidIndex && error?.byteOffset == 53)
    }

    @Test func aKeyOrClassIndexOutOfRange() {
        var builder = NIBArchiveBuilder()
        builder.values[1].key = 40
        #expect(refusal(builder.bytes)?.code == .invalidIndex)
        builder = NIBArchiveBuilder()
        builder.objects[0].classIndex = 2
        let error = refusal(builder.bytes)
        #expect(error?.code == .invalidIndex && error?.byteOffset == 50)
    }

    @Test func anUnknownValueType() {
        var builder = NIBArchiveBuilder()
        builder.values[1].type = 11
        let error = refusal(builder.bytes)
        #expect(error?.code == .invalidValueType && error?.byteOffset == 50 + 6 + 20 + 6 + 1)  // After value 0 (6 bytes) and value 1's key.
    }

    @Test func aVarintLongerThanFiveBytes() {
        var builder = NIBArchiveBuilder()
        builder.keys = []
        builder.values = []
        builder.objects = []
        builder.classNames = []
        var bytes = builder.bytes
        // One object whose class index never ends: six bytes without the high bit.
        bytes.replaceSubrange(18..<22, with: [1, 0, 0, 0])
        bytes += [1, 1, 1, 1, 1, 1, 0x80, 0x80]
        for start in [30, 38, 46] { bytes[start] = UInt8(bytes.count) }
        let error = refusal(bytes)
        #expect(error?.code == .invalidVarint && error?.byteOffset == 50)
    }

    @Test func aClassNameWithoutItsZeroByteOrNotUTF8() {
        var bytes = NIBArchiveBuilder().bytes
        bytes[bytes.count - 1] = UInt8(ascii: "x")  // NSString's terminating zero.
        #expect(refusal(bytes)?.code == .invalidString)
        var builder = NIBArchiveBuilder()
        builder.keys[1] = "fl\u{FF}g"
        var keyBytes = builder.bytes
        let at = try! #require(keyBytes.firstIndex(of: 0xC3))  // ÿ is C3 BF in UTF-8: make it a lone C3.
        keyBytes[at + 1] = UInt8(ascii: "x")
        let error = refusal(keyBytes)
        #expect(error?.code == .invalidString && error?.byteOffset == at - 2)
    }
}
