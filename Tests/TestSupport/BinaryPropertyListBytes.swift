import Foundation

/// Builds binary property lists byte by byte, for tests that need a file no
/// writer would make (a shared container, a cycle, a bad marker).
public enum BinaryPropertyListBytes {
    /// The header, `objects` (each object's bytes, in order), an offset
    /// table of `offsetSize`-byte entries and the trailer: `top` is the top
    /// object's number, `referenceSize` the size the objects' references
    /// were written with; `objectCount` and `tableOffset` default to the
    /// true ones, so a test can make them lie.
    public static func file(
        objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1,
        objectCount: UInt64? = nil, tableOffset: UInt64? = nil
    ) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets {
            for shift in stride(from: (max(Int(offsetSize), 1) - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: offset >> shift))
            }
        }
        func be64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) } }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        bytes += be64(objectCount ?? UInt64(objects.count)) + be64(top) + be64(tableOffset ?? UInt64(table))
        return Data(bytes)
    }
}

/// Hostile binary property lists whose objects are reached through many
/// references to one object (issue 38, item 5): small files that expand, as
/// any output writes them, to gigabytes. No writer makes them (writers never
/// share a container), so they are laid out here by hand; plistlib reads
/// them, each shared object decoded once.
extension BinaryPropertyListBytes {
    /// A data object of `count` bytes, each `0x61` ("a").
    public static func dataObject(count: Int) -> [UInt8] { marker(0x4, count) + [UInt8](repeating: 0x61, count: count) }

    /// An ASCII string object of `count` "a"s.
    public static func asciiStringObject(count: Int) -> [UInt8] { marker(0x5, count) + [UInt8](repeating: 0x61, count: count) }

    /// A UTF-16 string object of `units` "é"s (U+00E9, two bytes each in the file).
    public static func utf16StringObject(units: Int) -> [UInt8] { marker(0x6, units) + Array(repeating: [0x00, 0xE9], count: units).flatMap { $0 } }

    /// Arrays each referring `fanOuts[i]` times to the next, the last to
    /// `leaf`: object 0 is the top array, objects 1… the arrays below it,
    /// the last object the leaf, 2-byte references and 4-byte offsets. The
    /// leaf is reached `fanOuts.reduce(1, *)` times: `[64, 64, 1024]` over a
    /// 64 KB data object is the 66 KB file of 4 million references
    /// to 64 KB, 256 GiB written out.
    public static func nestedSharing(fanOuts: [Int], leaf: [UInt8]) -> Data {
        var objects: [[UInt8]] = []
        for (level, fanOut) in fanOuts.enumerated() {
            objects.append(marker(0xA, fanOut) + Array(repeating: reference(level + 1), count: fanOut).flatMap { $0 })
        }
        objects.append(leaf)
        return file(objects: objects, offsetSize: 4, referenceSize: 2)
    }

    /// A dictionary of `keyCount` keys ("k0", "k1", …) whose every value is
    /// one array of `fanOut` references to `leaf`: the leaf is reached
    /// `keyCount × fanOut` times. Object 0 the dictionary, 1…keyCount the
    /// keys, then the array and the leaf.
    public static func dictionaryOfOneSharedArray(keyCount: Int, fanOut: Int, leaf: [UInt8]) -> Data {
        let array = keyCount + 1
        var dictionary = marker(0xD, keyCount)
        for key in 0..<keyCount { dictionary += reference(1 + key) }
        for _ in 0..<keyCount { dictionary += reference(array) }
        var objects = [dictionary]
        for key in 0..<keyCount { objects.append(marker(0x5, "k\(key)".utf8.count) + Array("k\(key)".utf8)) }
        objects.append(marker(0xA, fanOut) + Array(repeating: reference(array + 1), count: fanOut).flatMap { $0 })
        objects.append(leaf)
        return file(objects: objects, offsetSize: 4, referenceSize: 2)
    }

    /// A top array of `count` references, each to an object of its own
    /// number whose offset-table entry points at the same bytes: `leaf`,
    /// laid out once. Nothing is referenced twice, yet the leaf is read
    /// `count` times: the offset table, not the references, does the sharing.
    public static func aliasedOffsets(count: Int, leaf: [UInt8]) -> Data {
        var bytes = Array("bplist00".utf8)
        let top = bytes.count
        bytes += marker(0xA, count)
        for object in 1...count { bytes += reference(object) }
        let leafOffset = bytes.count
        bytes += leaf
        let table = bytes.count
        for offset in [top] + Array(repeating: leafOffset, count: count) { bytes += bigEndian(UInt64(offset), size: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2] + bigEndian(UInt64(count + 1), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(table), size: 8)
        return Data(bytes)
    }

    /// A keyed archive whose root is an NSArray of `references` elements,
    /// all one UID object naming `$objects[3]`, a string of `length` "a"s:
    /// every printer that shows the array writes the string `references`
    /// times. 1-byte references (fewer than 256 objects), 4-byte offsets;
    /// as plistlib reads it: `{"$archiver": "NSKeyedArchiver", "$version":
    /// 100000, "$top": {"root": UID(1)}, "$objects": ["$null", {"NS.objects":
    /// [UID(3), …], "$class": UID(2)}, {"$classname": "NSArray", "$classes":
    /// ["NSArray", "NSObject"]}, "aaa…"]}`.
    public static func archiveOfOneSharedString(references: Int, length: Int) -> Data {
        var objects: [[UInt8]] = []
        func add(_ object: [UInt8]) -> UInt8 {
            objects.append(object)
            return UInt8(objects.count - 1)
        }
        func string(_ text: String) -> UInt8 { add(marker(0x5, text.utf8.count) + Array(text.utf8)) }
        _ = add([])  // The top dictionary, filled in last.
        let archiverKey = string("$archiver"), archiver = string("NSKeyedArchiver")
        let versionKey = string("$version"), version = add([0x12] + bigEndian(100_000, size: 4))
        let topKey = string("$top"), objectsKey = string("$objects")
        let rootKey = string("root"), rootUID = add([0x80, 1])
        let top = add([0xD1, rootKey, rootUID])
        let null = string("$null")
        let elementsKey = string("NS.objects"), classKey = string("$class")
        let classUID = add([0x80, 2]), stringUID = add([0x80, 3])
        let elements = add(marker(0xA, references) + [UInt8](repeating: stringUID, count: references))
        let array = add([0xD2, elementsKey, classKey, elements, classUID])
        let classNameKey = string("$classname"), classesKey = string("$classes")
        let className = string("NSArray"), objectClass = string("NSObject")
        let classes = add([0xA2, className, objectClass])
        let classDescription = add([0xD2, classNameKey, classesKey, className, classes])
        let shared = add(marker(0x5, length) + [UInt8](repeating: 0x61, count: length))
        let archiveObjects = add([0xA4, null, array, classDescription, shared])
        objects[0] = [0xD4, archiverKey, versionKey, topKey, objectsKey, archiver, version, top, archiveObjects]
        return file(objects: objects, offsetSize: 4, referenceSize: 1)
    }

    /// A marker of `kind` (the high nibble) for `count` items: in its low
    /// nibble below 15, else 0xF and a 4-byte integer.
    private static func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x12] + bigEndian(UInt64(count), size: 4)
    }

    private static func reference(_ object: Int) -> [UInt8] { bigEndian(UInt64(object), size: 2) }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
