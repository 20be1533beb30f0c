/// A keyed archive as Apple's `NSKeyedArchiver` writes it for a Swift class
/// named with `setClassName("TestDummy", for:)`: its class description is
/// `{"$classname": "TestDummy"}`, with no `$classes`. Built by hand, byte by
/// byte (binary property list, objects in CoreFoundation's order, 1-byte
/// offsets and references); the offsets were counted by hand.
enum ClassNameOnlyArchive {
    static let bytes: [UInt8] = [
        0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
        0xD4, 1, 2, 3, 4, 5, 6, 14, 15,  // 0 @8: dict of 4: keys 1–4, values 5, 6, 14, 15
        0x58, 0x24, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E,  // 1 @17: "$version"
        0x58, 0x24, 0x6F, 0x62, 0x6A, 0x65, 0x63, 0x74, 0x73,  // 2 @26: "$objects"
        0x59, 0x24, 0x61, 0x72, 0x63, 0x68, 0x69, 0x76, 0x65, 0x72,  // 3 @35: "$archiver"
        0x54, 0x24, 0x74, 0x6F, 0x70,  // 4 @45: "$top"
        0x12, 0x00, 0x01, 0x86, 0xA0,  // 5 @50: integer 100000 (4 bytes)
        0xA3, 7, 8, 11,  // 6 @55: $objects, array of 3: objects 7, 8, 11
        0x55, 0x24, 0x6E, 0x75, 0x6C, 0x6C,  // 7 @59: "$null"
        0xD1, 9, 10,  // 8 @65: $objects[1], dict of 1: key 9, value 10
        0x56, 0x24, 0x63, 0x6C, 0x61, 0x73, 0x73,  // 9 @68: "$class"
        0x80, 0x02,  // 10 @75: UID 2
        0xD1, 12, 13,  // 11 @77: $objects[2], the class description: key 12, value 13
        0x5A, 0x24, 0x63, 0x6C, 0x61, 0x73, 0x73, 0x6E, 0x61, 0x6D, 0x65,  // 12 @80: "$classname"
        0x59, 0x54, 0x65, 0x73, 0x74, 0x44, 0x75, 0x6D, 0x6D, 0x79,  // 13 @91: "TestDummy"
        0x5F, 0x10, 0x0F, 0x4E, 0x53, 0x4B, 0x65, 0x79, 0x65, 0x64,  // 14 @101: "NSKeyedArchiver" (length 15 as an integer)
        0x41, 0x72, 0x63, 0x68, 0x69, 0x76, 0x65, 0x72,
        0xD1, 16, 17,  // 15 @119: $top, dict of 1: key 16, value 17
        0x54, 0x72, 0x6F, 0x6F, 0x74,  // 16 @122: "root"
        0x80, 0x01,  // 17 @127: UID 1
        // @129: offset table, one byte each
        8, 17, 26, 35, 45, 50, 55, 59, 65, 68, 75, 77, 80, 91, 101, 119, 122, 127,
        // trailer: 6 unused, offset size 1, reference size 1, 18 objects, top 0, table at 129
        0, 0, 0, 0, 0, 0, 1, 1,
        0, 0, 0, 0, 0, 0, 0, 18,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 129,
    ]
}
